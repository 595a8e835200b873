import RealModule

/// Each column's window — its Gaussian out to 4σ, clipped to the region — and the separable factors of the
/// Gaussian and its derivatives there. Along each axis, at offset d from the centre: the Gaussian factor
/// g(d) = exp(−d²/2σ²), its first moment d·g(d) and its second moment d²·g(d). A column's Gaussian over its window is
/// the product of its x and y factors; its derivatives by the centre and the width are sums of such products.
struct ColumnWindows {
    /// The factors of every column along one axis, one column's after another.
    struct AxisFactors {
        var gaussian: [Double] = [], firstMoment: [Double] = [], secondMoment: [Double] = []
    }

    /// The factors as raw buffers, for the inner loops of J and Jᵀ.
    struct AxisPointers {
        let gaussian, firstMoment, secondMoment: UnsafeBufferPointer<Double>
    }

    /// Column k's window, in region pixels, across and down.
    var xRange: [Range<Int>] = [], yRange: [Range<Int>] = []
    /// Where column k's factors start in `x` (`y`).
    var xStart: [Int] = [], yStart: [Int] = []
    var x = AxisFactors(), y = AxisFactors()
    /// The widest window, in pixels across.
    var widest = 0

    init(_ columns: [ColumnGaussian], sigma: Double, fit: JointColumnFit) {
        let reach = (4 * sigma).rounded(.up), half = 0.5 / (sigma * sigma)
        func appendFactors(_ range: Range<Int>, origin: Int, centre: Double, to factors: inout AxisFactors) {
            for i in range {
                let d = Double(origin + i) - centre
                let value = Double.exp(-d * d * half)
                factors.gaussian.append(value); factors.firstMoment.append(d * value)
                factors.secondMoment.append(d * d * value)
            }
        }
        for c in columns {
            let left = max(0, Int((c.x - reach).rounded(.down)) - fit.originX)
            let right = min(fit.width, Int((c.x + reach).rounded(.up)) - fit.originX + 1)
            let top = max(0, Int((c.y - reach).rounded(.down)) - fit.originY)
            let bottom = min(fit.height, Int((c.y + reach).rounded(.up)) - fit.originY + 1)
            // A column wholly outside the region gets an empty window.
            let across = left < right ? left..<right : 0..<0, down = top < bottom ? top..<bottom : 0..<0
            xRange.append(across); yRange.append(down)
            xStart.append(x.gaussian.count); yStart.append(y.gaussian.count)
            appendFactors(across, origin: fit.originX, centre: c.x, to: &x)
            appendFactors(down, origin: fit.originY, centre: c.y, to: &y)
            widest = max(widest, across.count)
        }
    }

    func withPointers<Result>(_ body: (_ x: AxisPointers, _ y: AxisPointers) -> Result) -> Result {
        x.gaussian.withUnsafeBufferPointer { xGaussian in
            x.firstMoment.withUnsafeBufferPointer { xFirstMoment in
                x.secondMoment.withUnsafeBufferPointer { xSecondMoment in
                    y.gaussian.withUnsafeBufferPointer { yGaussian in
                        y.firstMoment.withUnsafeBufferPointer { yFirstMoment in
                            y.secondMoment.withUnsafeBufferPointer { ySecondMoment in
                                body(
                                    AxisPointers(
                                        gaussian: xGaussian, firstMoment: xFirstMoment,
                                        secondMoment: xSecondMoment),
                                    AxisPointers(
                                        gaussian: yGaussian, firstMoment: yFirstMoment,
                                        secondMoment: ySecondMoment))
                            }
                        }
                    }
                }
            }
        }
    }
}
