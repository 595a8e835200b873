import RealModule

/// How far something must stand out from the noise to be reported.
enum Significance {
    /// The chance, over a whole image, that noise alone makes one feature of a kind appear: one image in a thousand,
    /// since what is said is believed.
    static let falseAlarms = 0.001

    /// How many standard deviations one of `tests` values of pure Gaussian noise exceeds (either way) with chance
    /// `falseAlarms` at most, all tests together (Bonferroni): 3.3 for one test, 4.8 for 500, 5.5 for 30 000.
    static func threshold(tests: Int) -> Double {
        let tail = falseAlarms / Double(max(1, tests))
        // erfc(z/√2) falls from 1 at 0: halve the bracket until it pins the value.
        var low = 0.0, high = 40.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if Double.erfc(middle / 2.0.squareRoot()) > tail { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// The standard deviation of the bulk of `values`, from their median absolute deviation from the median: values
    /// that stand out do not widen it.
    static func robustScale(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let centre = median(values)
        return 1.482_6 * median(values.map { abs($0 - centre) })
    }

    static func median(_ values: [Double]) -> Double { LatticeAnalysis.median(values) }
}
