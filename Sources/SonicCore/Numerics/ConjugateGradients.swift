/// Preconditioned conjugate gradients for a symmetric positive definite system A·x = b, given only as a function
/// applying A to a vector, and an approximate inverse of A (the preconditioner) as another. Starts from x = 0 and
/// stops when the preconditioned residual norm² (rᵀ·M⁻¹·r) has fallen by `tolerance`, or after `limit` iterations.
func conjugateGradients(
    _ rhs: [Double], tolerance: Double, limit: Int, apply: ([Double]) -> [Double],
    precondition: ([Double]) -> [Double]
) -> [Double] {
    var solution = [Double](repeating: 0, count: rhs.count), residual = rhs
    var preconditioned = precondition(residual), direction = preconditioned
    var residualNorm = zip(residual, preconditioned).reduce(0) { $0 + $1.0 * $1.1 }
    let target = tolerance * residualNorm
    for _ in 0..<limit where residualNorm > target && residualNorm.isFinite {
        let applied = apply(direction)
        let curvature = zip(direction, applied).reduce(0) { $0 + $1.0 * $1.1 }
        guard curvature > 0 else { break }
        let stepLength = residualNorm / curvature
        for i in solution.indices {
            solution[i] += stepLength * direction[i]; residual[i] -= stepLength * applied[i]
        }
        preconditioned = precondition(residual)
        let nextNorm = zip(residual, preconditioned).reduce(0) { $0 + $1.0 * $1.1 }
        for i in direction.indices { direction[i] = preconditioned[i] + nextNorm / residualNorm * direction[i] }
        residualNorm = nextNorm
    }
    return solution
}
