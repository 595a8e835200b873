/// What lies beside the crystal where it does not fill the image: amorphous material, or nothing.
///
/// Told by the columns the finder found there, off every grain: amorphous material is full of spots about as dense
/// as a lattice's columns, an empty support or vacuum has almost none. Between the two, nothing is said.
public enum Surroundings: String, Sendable {
    case amorphous
    case empty

    /// Amorphous where the spots off the crystal are at least this share as dense as its columns.
    static let amorphousDensity = 0.25
    /// Empty where they are at most this share as dense.
    static let emptyDensity = 0.05

    /// What lies beside `crystal`, from `analysis`'s columns; nil where the crystal fills the image, where too
    /// little lies beside it to judge (less than ten cells), or where the density says neither.
    static func judge(_ analysis: LatticeAnalysis, crystal: CrystalRegion, spacing: Double) -> Surroundings? {
        let area = Double(crystal.width * crystal.height)
        let insideArea = crystal.fraction * area, outsideArea = (1 - crystal.fraction) * area
        guard outsideArea >= 10 * spacing * spacing, insideArea >= 10 * spacing * spacing else { return nil }
        // A spot counts as beside the crystal only half a spacing clear of it, where no cut-off column of its edge
        // is.
        let clear = spacing / 2
        let inside = analysis.columns.count
        let outside = analysis.offCrystal.filter { p in
            ![(clear, 0.0), (-clear, 0), (0, clear), (0, -clear)].contains {
                crystal.contains(ImagePoint(x: p.x + $0.0, y: p.y + $0.1))
            }
        }.count
        guard inside > 0 else { return nil }
        let density = (Double(outside) / outsideArea) / (Double(inside) / insideArea)
        if density >= amorphousDensity { return .amorphous }
        if density <= emptyDensity { return .empty }
        return nil
    }
}
