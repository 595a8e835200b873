/// The main X-ray lines and EELS edge onsets of an element: what `--element` maps and what names a
/// spectrum's peaks.
///
/// The values are public reference data, as exspy 0.3 (HyperSpy's spectroscopy library) ships them,
/// written here in a form of our own: X-ray line energies from Chantler et al., "X-Ray Transition
/// Energies", NIST Standard Reference Database 128 (2005, a work of the US government); edge onsets
/// from Gatan's EELS Atlas (eels.info). An L2,3 edge is given at its L3 onset, an M4,5 edge at its M5.
public struct Element: Sendable, Equatable {
    public let symbol: String
    public let name: String
    public let atomicNumber: Int
    /// keV, in the order of `XRayLine.allCases`; nil where the element has no such line.
    let lineEnergies: [Double?]
    /// eV, in the order of `Edge.allCases`.
    let edgeOnsets: [Double?]

    init(_ symbol: String, _ name: String, _ atomicNumber: Int, lines: [Double?], edges: [Double?]) {
        self.symbol = symbol
        self.name = name
        self.atomicNumber = atomicNumber
        lineEnergies = lines
        edgeOnsets = edges
    }

    /// The line's energy in keV, if the element has it.
    public func energy(of line: XRayLine) -> Double? { lineEnergies[XRayLine.allCases.firstIndex(of: line)!] }

    /// The edge's onset in eV, if the element has it.
    public func onset(of edge: Edge) -> Double? { edgeOnsets[Edge.allCases.firstIndex(of: edge)!] }

    /// The element an image's title names it a map of: "Fe", "Fe-EELS", "Fe K", "Fe Kα" (the symbol, as written,
    /// first); nil for any other title ("HAADF", "DF-S").
    public static func mapped(byTitle title: String) -> Element? {
        let first = title.split { $0 == "-" || $0 == " " || $0 == "_" }.first.map(String.init) ?? ""
        return table.first { $0.symbol == first }
    }

    /// The element of this symbol ("Ti", "ti") or name ("titanium"), or nil.
    public static func named(_ text: String) -> Element? {
        let wanted = text.lowercased()
        return table.first { $0.symbol.lowercased() == wanted || $0.name == wanted }
    }
}

/// The X-ray lines in the table, strongest family first.
public enum XRayLine: String, Sendable, CaseIterable {
    case kAlpha = "Kα"
    case kBeta = "Kβ"
    case lAlpha = "Lα"
    case mAlpha = "Mα"

    /// "K alpha", as the voice says it.
    public var spoken: String {
        switch self {
        case .kAlpha: "K alpha"
        case .kBeta: "K beta"
        case .lAlpha: "L alpha"
        case .mAlpha: "M alpha"
        }
    }
}

/// The EELS edges in the table.
public enum Edge: String, Sendable, CaseIterable {
    case k = "K"
    case l23 = "L2,3"
    case m45 = "M4,5"

    /// "K edge", "L edge", as the voice says it.
    public var spoken: String { "\(rawValue.prefix(1)) edge" }
}

extension Element {
    /// Every element from hydrogen to americium.
    public static let table: [Element] = [
        .init("H", "hydrogen", 1, lines: [nil, nil, nil, nil], edges: [13.598, nil, nil]),
        .init("He", "helium", 2, lines: [nil, nil, nil, nil], edges: [24.587, nil, nil]),
        .init("Li", "lithium", 3, lines: [nil, nil, nil, nil], edges: [55, nil, nil]),
        .init("Be", "beryllium", 4, lines: [0.10258, nil, nil, nil], edges: [111, nil, nil]),
        .init("B", "boron", 5, lines: [0.1833, nil, nil, nil], edges: [188, nil, nil]),
        .init("C", "carbon", 6, lines: [0.2774, nil, nil, nil], edges: [284, nil, nil]),
        .init("N", "nitrogen", 7, lines: [0.3924, nil, nil, nil], edges: [401, nil, nil]),
        .init("O", "oxygen", 8, lines: [0.5249, nil, nil, nil], edges: [532, nil, nil]),
        .init("F", "fluorine", 9, lines: [0.6768, nil, nil, nil], edges: [685, nil, nil]),
        .init("Ne", "neon", 10, lines: [0.8486, 0.8669, nil, nil], edges: [867, nil, nil]),
        .init("Na", "sodium", 11, lines: [1.041, 1.0721, nil, nil], edges: [1072, nil, nil]),
        .init("Mg", "magnesium", 12, lines: [1.2536, 1.305, nil, nil], edges: [1305, 51, nil]),
        .init("Al", "aluminium", 13, lines: [1.4865, 1.5596, nil, nil], edges: [1560, nil, nil]),
        .init("Si", "silicon", 14, lines: [1.7397, 1.8389, nil, nil], edges: [1839, 99.2, nil]),
        .init("P", "phosphorus", 15, lines: [2.0133, 2.13916, nil, nil], edges: [2146, nil, nil]),
        .init("S", "sulfur", 16, lines: [2.3072, 2.46427, nil, nil], edges: [nil, nil, nil]),
        .init("Cl", "chlorine", 17, lines: [2.6224, 2.8156, nil, nil], edges: [nil, nil, nil]),
        .init("Ar", "argon", 18, lines: [2.9577, 3.1905, nil, nil], edges: [nil, nil, nil]),
        .init("K", "potassium", 19, lines: [3.3138, 3.5896, nil, nil], edges: [nil, 294, nil]),
        .init("Ca", "calcium", 20, lines: [3.6917, 4.0127, 0.3464, nil], edges: [nil, 346, nil]),
        .init("Sc", "scandium", 21, lines: [4.0906, 4.4605, 0.4022, nil], edges: [nil, 402, nil]),
        .init("Ti", "titanium", 22, lines: [4.5109, 4.9318, 0.4555, nil], edges: [nil, 456, nil]),
        .init("V", "vanadium", 23, lines: [4.9522, 5.4273, 0.5129, nil], edges: [nil, 513, nil]),
        .init("Cr", "chromium", 24, lines: [5.4147, 5.9467, 0.5722, nil], edges: [nil, 575, nil]),
        .init("Mn", "manganese", 25, lines: [5.8987, 6.4904, 0.63316, nil], edges: [nil, 640, nil]),
        .init("Fe", "iron", 26, lines: [6.4039, 7.058, 0.7045, nil], edges: [7113, 708, nil]),
        .init("Co", "cobalt", 27, lines: [6.9303, 7.6494, 0.7757, nil], edges: [nil, 779, nil]),
        .init("Ni", "nickel", 28, lines: [7.4781, 8.2647, 0.8511, nil], edges: [nil, 855, nil]),
        .init("Cu", "copper", 29, lines: [8.0478, 8.9053, 0.9295, nil], edges: [nil, 931, nil]),
        .init("Zn", "zinc", 30, lines: [8.6389, 9.572, 1.0116, nil], edges: [nil, 1020, nil]),
        .init("Ga", "gallium", 31, lines: [9.2517, 10.2642, 1.098, nil], edges: [nil, 1115, nil]),
        .init("Ge", "germanium", 32, lines: [9.8864, 10.9823, 1.188, nil], edges: [nil, 1217, nil]),
        .init("As", "arsenic", 33, lines: [10.5436, 11.7262, 1.2819, nil], edges: [nil, 1323, nil]),
        .init("Se", "selenium", 34, lines: [11.222, 12.4959, 1.3791, nil], edges: [nil, 1436, nil]),
        .init("Br", "bromine", 35, lines: [11.9238, 13.2922, 1.4809, nil], edges: [nil, 1550, nil]),
        .init("Kr", "krypton", 36, lines: [12.6507, 14.1118, 1.586, nil], edges: [nil, 1675, 89]),
        .init("Rb", "rubidium", 37, lines: [13.3953, 14.9612, 1.6941, nil], edges: [nil, 1804, 110]),
        .init("Sr", "strontium", 38, lines: [14.165, 15.8355, 1.8065, nil], edges: [nil, 1940, 134]),
        .init("Y", "yttrium", 39, lines: [14.9584, 16.7381, 1.9226, nil], edges: [nil, 2080, 160]),
        .init("Zr", "zirconium", 40, lines: [15.7753, 17.6671, 2.0423, nil], edges: [nil, 2222, 181]),
        .init("Nb", "niobium", 41, lines: [16.6151, 18.6226, 2.1659, nil], edges: [nil, 2371, 202.3]),
        .init("Mo", "molybdenum", 42, lines: [17.4793, 19.6072, 2.2932, nil], edges: [nil, 2520, 227]),
        .init("Tc", "technetium", 43, lines: [18.3671, 20.619, 2.424, nil], edges: [21044, 2677, 253]),
        .init("Ru", "ruthenium", 44, lines: [19.2793, 21.6566, 2.5585, nil], edges: [nil, nil, 279]),
        .init("Rh", "rhodium", 45, lines: [20.2161, 22.7237, 2.6968, nil], edges: [nil, nil, 308]),
        .init("Pd", "palladium", 46, lines: [21.177, 23.8188, 2.8386, nil], edges: [nil, nil, 335]),
        .init("Ag", "silver", 47, lines: [22.1629, 24.9426, 2.9844, nil], edges: [nil, nil, 367]),
        .init("Cd", "cadmium", 48, lines: [23.1737, 26.0947, 3.1338, nil], edges: [nil, nil, 404]),
        .init("In", "indium", 49, lines: [24.2098, 27.2756, 3.287, nil], edges: [nil, nil, 443]),
        .init("Sn", "tin", 50, lines: [25.2713, 28.4857, 3.444, nil], edges: [nil, nil, 485]),
        .init("Sb", "antimony", 51, lines: [26.359, 29.7256, 3.6047, nil], edges: [nil, nil, 528]),
        .init("Te", "tellurium", 52, lines: [27.4724, 30.9951, 3.7693, nil], edges: [nil, nil, 572]),
        .init("I", "iodine", 53, lines: [28.6123, 32.2948, 3.9377, nil], edges: [nil, nil, 620]),
        .init("Xe", "xenon", 54, lines: [29.7792, 33.6244, 4.1099, nil], edges: [nil, nil, 672]),
        .init("Cs", "caesium", 55, lines: [30.9727, 34.987, 4.2864, nil], edges: [nil, nil, 726]),
        .init("Ba", "barium", 56, lines: [32.1936, 36.3784, 4.4663, nil], edges: [nil, nil, 781]),
        .init("La", "lanthanum", 57, lines: [33.4419, 37.8012, 4.651, 0.8173], edges: [nil, nil, 832]),
        .init("Ce", "cerium", 58, lines: [34.7196, 39.2576, 4.8401, 0.8455], edges: [nil, nil, 883]),
        .init("Pr", "praseodymium", 59, lines: [36.0263, 40.7484, 5.0333, 0.8936], edges: [nil, nil, 931]),
        .init("Nd", "neodymium", 60, lines: [37.361, 42.2715, 5.2302, 0.9402], edges: [nil, nil, 978]),
        .init("Pm", "promethium", 61, lines: [38.7247, 43.8271, 5.4324, 0.9894], edges: [nil, 6459, 1027]),
        .init("Sm", "samarium", 62, lines: [40.118, 45.4144, 5.636, 1.0428], edges: [nil, nil, 1080]),
        .init("Eu", "europium", 63, lines: [41.5421, 47.0384, 5.846, 1.0991], edges: [nil, nil, 1131]),
        .init("Gd", "gadolinium", 64, lines: [42.9963, 48.6951, 6.0576, 1.17668], edges: [nil, nil, 1185]),
        .init("Tb", "terbium", 65, lines: [44.4817, 50.3844, 6.2728, 1.2326], edges: [nil, nil, 1241]),
        .init("Dy", "dysprosium", 66, lines: [45.9984, 52.1129, 6.4952, 1.2907], edges: [nil, nil, 1295]),
        .init("Ho", "holmium", 67, lines: [47.5466, 53.8765, 6.7197, 1.3477], edges: [nil, nil, 1351]),
        .init("Er", "erbium", 68, lines: [49.1276, 55.6737, 6.9486, 1.405], edges: [nil, nil, 1409]),
        .init("Tm", "thulium", 69, lines: [50.7416, 57.5051, 7.1803, 1.4624], edges: [nil, nil, 1468]),
        .init("Yb", "ytterbium", 70, lines: [52.3887, 59.3825, 7.4158, 1.5215], edges: [nil, nil, 1528]),
        .init("Lu", "lutetium", 71, lines: [54.0697, 61.2902, 7.6556, 1.5816], edges: [nil, nil, 1588]),
        .init("Hf", "hafnium", 72, lines: [55.7901, 63.2432, 7.899, 1.6446], edges: [nil, nil, 1662]),
        .init("Ta", "tantalum", 73, lines: [57.5353, 65.2224, 8.146, 1.7101], edges: [nil, nil, 1735]),
        .init("W", "tungsten", 74, lines: [59.3182, 67.244, 8.3976, 1.7756], edges: [nil, nil, 1809]),
        .init("Re", "rhenium", 75, lines: [61.1411, 69.3091, 8.6524, 1.8423], edges: [nil, nil, 1883]),
        .init("Os", "osmium", 76, lines: [62.9999, 71.4136, 8.9108, 1.9138], edges: [nil, nil, 1960]),
        .init("Ir", "iridium", 77, lines: [64.8958, 73.5603, 9.1748, 1.9799], edges: [nil, nil, 2040]),
        .init("Pt", "platinum", 78, lines: [66.8311, 75.7494, 9.4421, 2.0505], edges: [nil, nil, 2122]),
        .init("Au", "gold", 79, lines: [68.8062, 77.9819, 9.713, 2.1229], edges: [nil, nil, 2206]),
        .init("Hg", "mercury", 80, lines: [70.8184, 80.2552, 9.989, 2.1964], edges: [nil, nil, 2295]),
        .init("Tl", "thallium", 81, lines: [72.8729, 82.5738, 10.2682, 2.2708], edges: [nil, nil, 2389]),
        .init("Pb", "lead", 82, lines: [74.9693, 84.9381, 10.5512, 2.3459], edges: [nil, nil, 2484]),
        .init("Bi", "bismuth", 83, lines: [77.1073, 87.349, 10.839, 2.4222], edges: [nil, nil, 2580]),
        .init("Po", "polonium", 84, lines: [79.2912, 89.8031, 11.1308, nil], edges: [nil, 13814, 2683]),
        .init("At", "astatine", 85, lines: [81.5164, 92.3039, 11.4268, nil], edges: [nil, 14214, 2787]),
        .init("Rn", "radon", 86, lines: [83.7846, 94.866, 11.727, nil], edges: [nil, 14619, 2892]),
        .init("Fr", "francium", 87, lines: [86.1058, 97.474, 12.0315, nil], edges: [nil, 15031, 3000]),
        .init("Ra", "radium", 88, lines: [88.4776, 100.1302, 12.3395, nil], edges: [nil, 15444, 3105]),
        .init("Ac", "actinium", 89, lines: [90.884, 102.846, 12.652, 2.9239330000000003], edges: [nil, 15871, 3219]),
        .init("Th", "thorium", 90, lines: [93.3507, 105.6049, 12.9683, 2.9968], edges: [nil, nil, 3332]),
        .init("Pa", "protactinium", 91, lines: [95.8679, 108.4272, 13.2913, 3.0823], edges: [nil, 16733, 3442]),
        .init("U", "uranium", 92, lines: [98.4397, 111.3026, 13.6146, 3.1708], edges: [nil, nil, 3552]),
        .init("Np", "neptunium", 93, lines: [nil, nil, nil, nil], edges: [nil, 17610, 3666]),
        .init("Pu", "plutonium", 94, lines: [nil, nil, nil, nil], edges: [nil, 18057, 3778]),
        .init("Am", "americium", 95, lines: [nil, nil, nil, nil], edges: [nil, 18504, 3887])
    ]
}
