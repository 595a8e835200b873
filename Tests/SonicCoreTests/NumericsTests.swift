import Testing

@testable import SonicCore

@Suite struct NumericsTests {
    /// A random symmetric positive definite n×n matrix, row-major: BᵀB + I.
    static func positiveDefinite(_ n: Int, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        let b = (0..<(n * n)).map { _ in random.gaussian() }
        var a = [Double](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0..<n {
                for k in 0..<n { a[i * n + j] += b[k * n + i] * b[k * n + j] }
                if i == j { a[i * n + j] += 1 }
            }
        }
        return a
    }

    static func multiply(_ a: [Double], _ x: [Double]) -> [Double] {
        let n = x.count
        return (0..<n).map { i in (0..<n).reduce(0) { $0 + a[i * n + $1] * x[$1] } }
    }

    @Test func choleskyFactorsAndSolvesBlocksInPlace() {
        let n = 5
        let a = Self.positiveDefinite(n, seed: 3)
        // Two blocks in one array: the second, from an offset, is the one factored.
        var stored = [Double](repeating: 7, count: n * n) + a
        #expect(Cholesky.factor(&stored, at: n * n, size: n))
        #expect(stored[..<(n * n)].allSatisfy { $0 == 7 })
        let factor = Array(stored[(n * n)...])
        // L·Lᵀ is A (the lower triangle holds L).
        for i in 0..<n {
            for j in 0...i {
                let product = (0...j).reduce(0.0) { $0 + factor[i * n + $1] * factor[j * n + $1] }
                #expect(abs(product - a[i * n + j]) < 1e-9)
            }
        }
        let x = [1.0, -2, 0.5, 3, -0.25]
        var solved = [9.0] + Self.multiply(a, x)
        Cholesky.solve(stored, at: n * n, size: n, &solved, from: 1)
        #expect(solved[0] == 9)
        #expect(zip(solved.dropFirst(), x).allSatisfy { abs($0 - $1) < 1e-9 })
    }

    @Test func choleskyRefusesWhatIsNotPositiveDefinite() {
        var indefinite = [1.0, 2, 2, 1]
        #expect(!Cholesky.factor(&indefinite, size: 2))
        var singular = [1.0, 1, 1, 1]
        #expect(!Cholesky.factor(&singular, size: 2))
        var notFinite = [Double.nan, 0, 0, 1]
        #expect(!Cholesky.factor(&notFinite, size: 2))
    }

    @Test func conjugateGradientsSolveAPositiveDefiniteSystem() {
        let n = 30
        let a = Self.positiveDefinite(n, seed: 8)
        let x = (0..<n).map { Double($0 % 7) - 3 }
        let b = Self.multiply(a, x)
        // With the diagonal as preconditioner, n iterations solve it to rounding.
        let solved = conjugateGradients(
            b, tolerance: 1e-28, limit: 3 * n, apply: { Self.multiply(a, $0) },
            precondition: { v in v.indices.map { v[$0] / a[$0 * n + $0] } })
        #expect(zip(solved, x).allSatisfy { abs($0 - $1) < 1e-8 })
        // A loose tolerance stops early, closer than where it started.
        let rough = conjugateGradients(
            b, tolerance: 1e-2, limit: 3 * n, apply: { Self.multiply(a, $0) },
            precondition: { $0 })
        let error = zip(rough, x).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        #expect(error > 0 && error < x.reduce(0) { $0 + $1 * $1 })
    }

    @Test func conjugateGradientsStartAtZeroAndStopOnZero() {
        let solved = conjugateGradients([0, 0, 0], tolerance: 1e-6, limit: 10, apply: { $0 }, precondition: { $0 })
        #expect(solved == [0, 0, 0])
    }
}

@Suite struct NumberTextTests {
    @Test func numbersForPeopleHaveNoENotationAndAtMostFourDecimals() {
        #expect(NumberText.readable(1_722_220) == "1722000")
        #expect(NumberText.readable(8.65182e6) == "8652000")
        #expect(NumberText.readable(-0.891312) == "-0.8913")
        #expect(NumberText.readable(17.999999225139618) == "18")
        #expect(NumberText.readable(0.0002001) == "0.0002")
        #expect(NumberText.readable(-0.00001) == "0")
        #expect(NumberText.readable(390.45) == "390.5" || NumberText.readable(390.45) == "390.4")
        #expect(NumberText.readable(1e300).allSatisfy { $0.isNumber })
        #expect(NumberText.significant(80.0238, digits: 6) == "80.0238")
        #expect(NumberText.significant(-1.90077, digits: 6) == "-1.9008")
        #expect(NumberText.significant(17.8, digits: 3) == "17.8")
        #expect(NumberText.readable(.nan) == "not a number")
        #expect(PixelSize(picometres: 158_658.0379596911)?.description == "158.7 nm")
        #expect(PixelSize(picometres: 17.999999225139618)?.description == "18 pm")
    }
}
