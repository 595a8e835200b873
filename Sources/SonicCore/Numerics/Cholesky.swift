/// Cholesky factorisation of small symmetric positive definite matrices, A = L·Lᵀ. A matrix is stored row-major in
/// a flat array, from an offset, so that many small blocks can share one array.
enum Cholesky {
    /// Replaces the lower triangle of the n×n matrix stored at `matrix[offset...]` by its factor L; false if the
    /// matrix is not positive definite (the triangle is then partly overwritten).
    static func factor(_ matrix: inout [Double], at offset: Int = 0, size n: Int) -> Bool {
        for j in 0..<n {
            var pivot = matrix[offset + j * n + j]
            for k in 0..<j { pivot -= matrix[offset + j * n + k] * matrix[offset + j * n + k] }
            guard pivot > 0 && pivot.isFinite else { return false }
            let diagonal = pivot.squareRoot()
            matrix[offset + j * n + j] = diagonal
            for i in (j + 1)..<n {
                var entry = matrix[offset + i * n + j]
                for k in 0..<j { entry -= matrix[offset + i * n + k] * matrix[offset + j * n + k] }
                matrix[offset + i * n + j] = entry / diagonal
            }
        }
        return true
    }

    /// Solves L·Lᵀ·x = v in place for the factor L stored at `factor[offset...]` and the n entries of `vector`
    /// from `start`: forward substitution through L, then back substitution through Lᵀ.
    static func solve(
        _ factor: [Double], at offset: Int = 0, size n: Int, _ vector: inout [Double], from start: Int = 0
    ) {
        for i in 0..<n {
            var value = vector[start + i]
            for k in 0..<i { value -= factor[offset + i * n + k] * vector[start + k] }
            vector[start + i] = value / factor[offset + i * n + i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var value = vector[start + i]
            for k in (i + 1)..<n { value -= factor[offset + k * n + i] * vector[start + k] }
            vector[start + i] = value / factor[offset + i * n + i]
        }
    }
}
