/// Where columns overlap strongly, their joint refinement (`JointColumnFit`), tile by tile.
///
/// The image is cut evenly into fixed tiles of about 16 spacings. Each tile's columns are fitted together with those
/// within a margin around it (whose own results are discarded: their outer neighbours are missing), and with
/// lattice-extrapolated ghost columns beyond. A column belongs to the tile its local centre lies in, so a tap refits
/// only the tiles near it and gets exactly what the whole image gets.
///
/// Columns the local stage missed: every candidate it could not refine (its one-column fits fail where columns
/// overlap strongly, most often on a weak sublattice), and every empty site the lattice implies next to a column,
/// gets a trial column, held at the site; those that come out significant are kept and refined, and the sites next
/// to them are tried in the next round. A vacancy stays empty: a rejected site is tried again only once more columns
/// have been found. Then the bumps the fit leaves in its residual are tried the same way (`ResidualPeaks`): columns
/// that are no lattice site of those found, such as a weak sublattice on the flanks of strong columns.
struct JointTiling: Sendable {
    let geometry: ColumnGeometry
    let noise: Double
    /// How the noise grows with the level: the joint fits weight pixels by it.
    let noiseModel: NoiseModel?
    let imageWidth: Int, imageHeight: Int
    /// Tiles across and down: as near the target size as divides the image evenly (a sliver of a tile at the edge
    /// would fit its columns from a strip of pixels).
    let tileColumns: Int, tileRows: Int
    let margin: Int

    struct Tile: Hashable, Sendable { var column: Int, row: Int }

    init(geometry: ColumnGeometry, noise: Double, noiseModel: NoiseModel?, imageWidth: Int, imageHeight: Int) {
        self.geometry = geometry
        self.noise = noise
        self.noiseModel = noiseModel
        self.imageWidth = imageWidth; self.imageHeight = imageHeight
        let target = max(32, ColumnGeometry.jointTileSpacings * geometry.spacing)
        tileColumns = max(1, Int((Double(imageWidth) / target).rounded()))
        tileRows = max(1, Int((Double(imageHeight) / target).rounded()))
        margin = Int((ColumnGeometry.jointMarginSpacings * geometry.spacing).rounded(.up))
    }

    var allTiles: [Tile] {
        (0..<tileRows).flatMap { row in (0..<tileColumns).map { Tile(column: $0, row: row) } }
    }

    /// The tiles whose core comes within `radius` of (x, y).
    func tiles(nearX x: Double, y: Double, within radius: Double) -> [Tile] {
        allTiles.filter { tile in
            let (xs, ys) = core(tile)
            let dx = max(Double(xs.lowerBound) - 0.5 - x, x - (Double(xs.upperBound) - 0.5), 0)
            let dy = max(Double(ys.lowerBound) - 0.5 - y, y - (Double(ys.upperBound) - 0.5), 0)
            return dx * dx + dy * dy <= radius * radius
        }
    }

    func core(_ tile: Tile) -> (xs: Range<Int>, ys: Range<Int>) {
        (
            tile.column * imageWidth / tileColumns..<(tile.column + 1) * imageWidth / tileColumns,
            tile.row * imageHeight / tileRows..<(tile.row + 1) * imageHeight / tileRows
        )
    }

    /// The tile's core plus its margin, within the image: the pixels its fit sees.
    func region(_ tile: Tile) -> (xs: Range<Int>, ys: Range<Int>) {
        let (xs, ys) = core(tile)
        return (
            max(0, xs.lowerBound - margin)..<min(imageWidth, xs.upperBound + margin),
            max(0, ys.lowerBound - margin)..<min(imageHeight, ys.upperBound + margin)
        )
    }

    static func contains(_ xs: Range<Int>, _ ys: Range<Int>, _ x: Double, _ y: Double) -> Bool {
        x >= Double(xs.lowerBound) - 0.5 && x < Double(xs.upperBound) - 0.5
            && y >= Double(ys.lowerBound) - 0.5 && y < Double(ys.upperBound) - 0.5
    }

    /// The refined columns of one tile's core. `local` must hold every locally refined column whose centre lies in
    /// the tile's region, and `unrefined` every candidate pixel there that the local stage could not refine (others
    /// are ignored).
    func refine(_ tile: Tile, in image: GrayImage, local: [LocalColumn], unrefined: [(x: Int, y: Int)])
        -> [PlacedColumn]
    {
        let (xs, ys) = region(tile), (coreXs, coreYs) = core(tile)
        // A fixed order, so the fit rounds the same however the columns were gathered.
        let columns = local.filter { Self.contains(xs, ys, $0.gaussian.x, $0.gaussian.y) }
            .sorted { ($0.pixelY, $0.pixelX) < ($1.pixelY, $1.pixelX) }
        guard !columns.isEmpty else { return [] }
        let d = geometry.spacing
        var sigma = columns.map(\.gaussian.sigma).sorted()[columns.count / 2]
        let reach = 4 * geometry.maximumSigma
        let fit = JointColumnFit(
            image: image, xs: xs, ys: ys, nodeSpacing: ColumnGeometry.jointNodeSpacings * d,
            sigmaRange: geometry.minimumSigma...geometry.maximumSigma, noiseModel: noiseModel)

        var starts = columns.map { (x: $0.gaussian.x, y: $0.gaussian.y, pixelX: $0.pixelX, pixelY: $0.pixelY) }
        var free = columns.map(\.gaussian)
        let candidates = unrefined.filter { Self.contains(xs, ys, Double($0.x), Double($0.y)) }
            .sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        var steps = LatticeSteps(free, spacing: d)
        var rejected: [ColumnGaussian] = []
        var trials = trialSites(free, steps: steps, xs: xs, ys: ys, candidates: candidates, rejected: rejected)
        var result: JointColumnFit.Result
        var round = 0, residualSearches = 0, trialsFromResidual = false
        while true {
            // The ghosts come from the free columns only, anew each round: a trial is not yet a column.
            let ghosted = JointColumnFit.withGhosts(free, steps: steps, xs: xs, ys: ys, spacing: d, reach: reach)
            let model = free + trials + ghosted.columns[free.count...]
            let roles = ghosted.roles[..<free.count] + trials.map { _ in .held } + ghosted.roles[free.count...]
            let trialIndices = Array(free.count..<(free.count + trials.count))
            result = fit.refine(
                model, roles: Array(roles), sigma: sigma, qualityRadius: geometry.firstWindow,
                errorsOf: trialIndices)
            if trials.isEmpty {
                // Once the lattice has nothing more to offer: a column that is no lattice site of the columns found
                // (a weak sublattice none of whose columns the local stage saw) shows in what the model leaves.
                guard residualSearches < ColumnGeometry.residualSearches else { break }
                residualSearches += 1
                trials = residualSites(result, fit: fit, rejected: rejected)
                guard !trials.isEmpty else { break }
                trialsFromResidual = true
                round = 0
                continue
            }
            var kept: [ColumnGaussian] = [], disturbing = false
            for (t, k) in trialIndices.enumerated() {
                let amplitude = result.columns[k].amplitude, error = noise * result.amplitudeErrors[t]
                // The model the residual came from had its neighbours take up part of the bump (a wider background,
                // narrower columns), which the trial's fit does not fully undo: its contrast is judged at the end,
                // after a fit with it free.
                if amplitude >= (trialsFromResidual ? 0 : ColumnGeometry.minimumContrast * noise)
                    && amplitude >= ColumnGeometry.minimumSignificance * error
                {
                    kept.append(result.columns[k])
                    starts.append(
                        (
                            x: trials[t].x, y: trials[t].y,
                            pixelX: Int(trials[t].x.rounded()), pixelY: Int(trials[t].y.rounded())
                        ))
                } else {
                    rejected.append(trials[t])
                    if abs(amplitude) > ColumnGeometry.negligibleTrialErrors * error { disturbing = true }
                }
            }
            // A rejected trial that still took a clear (often negative) amplitude has bent its neighbours: the
            // region is fitted again without it. One whose amplitude is lost in its noise changed nothing.
            // Every column found changes the shared width and background: a site rejected before may pass now.
            if !kept.isEmpty { rejected.removeAll() }
            trialsFromResidual = false
            guard !kept.isEmpty || disturbing else { break }
            free = Array(result.columns[..<free.count]) + kept
            sigma = result.columns.first?.sigma ?? sigma
            steps = LatticeSteps(free, spacing: d)
            round += 1
            // A column found this way makes more sites checkable: a cluster the local stage missed is recovered
            // shell by shell. (And a site at the region's edge that was a ghost may have moved inside it.)
            trials =
                round < ColumnGeometry.jointRecoveryRounds
                ? trialSites(free, steps: steps, xs: xs, ys: ys, candidates: [], rejected: rejected) : []
        }
        return starts.indices.compactMap { k -> PlacedColumn? in
            let start = starts[k], c = result.columns[k]
            let dx = c.x - start.x, dy = c.y - start.y
            guard Self.contains(coreXs, coreYs, start.x, start.y),
                Self.contains(0..<imageWidth, 0..<imageHeight, c.x, c.y),
                dx * dx + dy * dy <= geometry.maximumShift * geometry.maximumShift,
                c.amplitude >= ColumnGeometry.minimumContrast * noise
            else { return nil }
            return PlacedColumn(
                column: AtomColumn(x: c.x, y: c.y, peak: c.amplitude, quality: result.quality[k], sigma: c.sigma),
                pixelX: start.pixelX, pixelY: start.pixelY)
        }
    }

    /// Trial columns where the fitted model leaves a column-like bump: significant, at least `residualShare` of the
    /// columns' median height (a model misfits in proportion to the signal, and at low noise such misfits are
    /// significant), at least half a spacing from every column of the model, every `rejected` site and the region's
    /// border inside the image (a column beyond it is a ghost's business). The trial's own fit has the last word.
    private func residualSites(
        _ result: JointColumnFit.Result, fit: JointColumnFit,
        rejected: [ColumnGaussian]
    ) -> [ColumnGaussian] {
        let d = geometry.spacing
        guard let sigma = result.columns.first?.sigma else { return [] }
        var near = SiteGrid(cellSize: d), tried = SiteGrid(cellSize: d)
        for k in result.columns.indices { near.insert(k, x: result.columns[k].x, y: result.columns[k].y) }
        for k in rejected.indices { tried.insert(k, x: rejected[k].x, y: rejected[k].y) }
        let height = result.columns.map(\.amplitude).sorted()[result.columns.count / 2]
        let peaks = ResidualPeaks.find(
            in: result.residual, width: fit.width, height: fit.height, sigma: sigma,
            noise: noise, minimumHeight: ColumnGeometry.residualShare * height,
            significance: ColumnGeometry.minimumSignificance,
            suppression: geometry.suppressionRadius)
        // Clear of a border inside the image, where a neighbouring region's column is only a ghost here and its tail
        // can look like a bump; at the image's edge a column half outside is still a column.
        let border = 0.5 * d
        let left = fit.originX > 0 ? border : -1, top = fit.originY > 0 ? border : -1
        let right = fit.originX + fit.width < imageWidth ? border : -1
        let bottom = fit.originY + fit.height < imageHeight ? border : -1
        return peaks.compactMap { peak in
            guard peak.x >= left && peak.x <= Double(fit.width - 1) - right,
                peak.y >= top && peak.y <= Double(fit.height - 1) - bottom
            else { return nil }
            let x = peak.x + Double(fit.originX), y = peak.y + Double(fit.originY)
            guard near.indices(nearX: x, y: y, within: 0.5 * d, in: result.columns).isEmpty,
                tried.indices(nearX: x, y: y, within: 0.5 * d, in: rejected).isEmpty
            else { return nil }
            return ColumnGaussian(x: x, y: y, amplitude: peak.height, sigma: sigma)
        }
    }

    /// Empty sites inside the region, where no column, earlier site or `rejected` site lies within half a spacing:
    /// the given candidate pixels, then those the lattice implies a step beyond a column from a neighbouring column,
    /// and a step beyond each such site from a neighbouring column (so a site is found beside a row of missing
    /// columns too, and at the region's edge). Each starts with the columns' median amplitude and width.
    private func trialSites(
        _ columns: [ColumnGaussian], steps: LatticeSteps, xs: Range<Int>, ys: Range<Int>,
        candidates: [(x: Int, y: Int)], rejected: [ColumnGaussian]
    ) -> [ColumnGaussian] {
        let d = geometry.spacing
        var all = columns
        var sites = SiteGrid(cellSize: d), tried = SiteGrid(cellSize: d)
        for k in all.indices { sites.insert(k, x: all[k].x, y: all[k].y) }
        for k in rejected.indices { tried.insert(k, x: rejected[k].x, y: rejected[k].y) }
        let amplitude = columns.map(\.amplitude).sorted()[columns.count / 2]
        let sigma = columns.map(\.sigma).sorted()[columns.count / 2]
        func add(_ x: Double, _ y: Double) {
            guard Self.contains(xs, ys, x, y), sites.indices(nearX: x, y: y, within: 0.5 * d, in: all).isEmpty,
                tried.indices(nearX: x, y: y, within: 0.5 * d, in: rejected).isEmpty
            else { return }
            all.append(ColumnGaussian(x: x, y: y, amplitude: amplitude, sigma: sigma))
            sites.insert(all.count - 1, x: x, y: y)
        }
        for candidate in candidates { add(Double(candidate.x), Double(candidate.y)) }
        // Sites beyond sites too, but always from a column: a chain from a site alone would run on across a region
        // with no lattice.
        var p = 0
        while p < all.count {
            for q in sites.indices(nearX: all[p].x, y: all[p].y, within: 1.3 * d, in: all)
            where q != p && q < columns.count {
                let site = steps.site(beyond: all[p], from: all[q])
                add(site.x, site.y)
            }
            p += 1
        }
        return Array(all[columns.count...])
    }
}
