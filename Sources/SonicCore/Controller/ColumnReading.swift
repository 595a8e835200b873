/// What a column mode says of the column at a point, for "where am I" and the column cursor.
enum ColumnReading {
    /// ", column intensity 1.31 times its sublattice's median", ", displaced 14 picometres, towards the upper left",
    /// ", stretched 1.2 percent along x, 0.3 along y, turned 0.4 degrees clockwise"; empty in the other modes.
    static func said(at point: ImagePoint, in state: SessionState, by instrument: Instrument) -> String {
        guard state.mode.soundsColumns, let lattice = state.lattice, lattice.hasLattice else { return "" }
        guard let (_, column) = instrument.column(near: point, in: lattice) else {
            return ", " + Phrases.betweenColumns
        }
        switch state.mode {
        case .columnIntensity:
            return ", " + (column.relativeIntensity.map(Phrases.columnIntensity) ?? Phrases.offTheLattice)
        case .latticeStrain:
            guard column.sublattice != nil else { return ", " + Phrases.offTheLattice }
            return ", " + (column.deformation.map(Phrases.strained) ?? Phrases.strainUnread)
        default:
            return ", "
                + (column.displacement.map { Phrases.displaced($0, pixelSize: lattice.pixelSize) }
                    ?? Phrases.offTheLattice)
        }
    }
}
