import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The physics of the bundled samples, as `columns` reports it, against the truth written beside them.
    @Suite struct LatticePhysicsTests {
        static func json(_ path: String) throws -> [String: Any] {
            let data = try #require(FileManager.default.contents(atPath: path))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        static func columns(_ image: String) throws -> [String: Any] {
            let result = try Subprocess.run(Fixtures.binary, ["columns", image, "--json"])
            #expect(result.status == 0, "\(result.output)")
            return try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        @Test func thePolarDomainsDisplacementsAreFoundWithinFiveHundredthsOfAPixel() throws {
            let image = Fixtures.repository + "/images/polar-domains.dm4"
            let truth = try Self.json(Fixtures.repository + "/images/polar-domains.truth.json")
            let found = try Self.columns(image)
            let pixelSize = try #require(found["pixelSize"] as? Double)
            #expect(abs(pixelSize - 18) < 0.001)
            #expect(found["sublattices"] as? Int == 2)
            let sites = try #require(truth["columns"] as? [[Double]])
            let columns = try #require(found["columns"] as? [[String: Any]])
            var checked = 0, up = 0, down = 0
            for column in columns {
                let x = try #require(column["x"] as? Double), y = try #require(column["y"] as? Double)
                let site = try #require(sites.min { hypot($0[0] - x, $0[1] - y) < hypot($1[0] - x, $1[1] - y) })
                // Columns whose Gaussian (σ 2.6 px) lies wholly inside the image.
                guard min(site[0], site[1], 383 - site[0], 383 - site[1]) >= 10 else { continue }
                #expect(hypot(site[0] - x, site[1] - y) < 0.1)
                #expect(column["sublattice"] as? Int == Int(site[2]))
                let dx = try #require(column["dx"] as? Double), dy = try #require(column["dy"] as? Double)
                #expect(hypot(dx - site[3], dy - site[4]) < 0.05, "at (\(x), \(y)): (\(dx), \(dy)) for \(site)")
                let dyPm = try #require(column["dyPm"] as? Double)
                #expect(abs(dyPm - dy * pixelSize) < 1e-9)
                checked += 1
                if site[2] == 2 { if site[4] < 0 { up += 1 } else { down += 1 } }
            }
            #expect(checked > 500 && up > 100 && down > 100)
        }

        @Test func theDopantsAreFoundThirtyPercentBrighterAndTheVacancyEmpty() throws {
            let image = Fixtures.repository + "/images/doped-lattice.png"
            let truth = try Self.json(Fixtures.repository + "/images/doped-lattice.truth.json")
            let found = try Self.columns(image)
            let columns = try #require(found["columns"] as? [[String: Any]])
            #expect(found["sublattices"] as? Int == 1 && found["pixelSize"] is NSNull)
            func near(_ point: [String: Any]) throws -> [String: Any]? {
                let x = try #require(point["x"] as? Double), y = try #require(point["y"] as? Double)
                return columns.first { hypot(($0["x"] as! Double) - x, ($0["y"] as! Double) - y) < 2 }
            }
            let factor = try #require(truth["dopantFactor"] as? Double)
            let dopants = try #require(truth["dopants"] as? [[String: Any]])
            for dopant in dopants {
                let column = try #require(try near(dopant))
                let ratio = try #require(column["relativeIntensity"] as? Double)
                #expect(abs(ratio - factor) < 0.03, "\(dopant): \(ratio)")
            }
            let others = columns.filter { column in
                !dopants.contains {
                    hypot(
                        ($0["x"] as! Double) - (column["x"] as! Double), ($0["y"] as! Double) - (column["y"] as! Double)
                    ) < 2
                }
            }
            #expect(others.count > 200)
            #expect(others.allSatisfy { abs(($0["relativeIntensity"] as? Double ?? 0) - 1) < 0.1 })
            for vacancy in try #require(truth["vacancies"] as? [[String: Any]]) {
                #expect(try near(vacancy) == nil)
            }
        }
    }
}
