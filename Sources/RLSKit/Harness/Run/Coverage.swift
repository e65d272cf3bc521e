/// The coverage summary: for each table and bucket, which operations were checked as which actors.
enum Coverage {
    static func notes(_ outcomes: [TestOutcome], plan: HarnessPlan) -> [String] {
        var lines: [String] = []
        let matrix = plan.units.filter { $0.isolation == .rollbackEach }
        if !matrix.isEmpty {
            lines.append("coverage (operation: actors checked)")
            let width = (matrix.map(\.suite.count).max() ?? 0) + 2
            for unit in matrix {
                let mine = outcomes.filter { $0.suite == unit.suite }
                if let skip = mine.first(where: { $0.name == "not covered" }) {
                    lines.append("  " + pad(unit.suite, width) + (skip.message ?? "not covered"))
                    continue
                }
                // Only checks that ran count: a unit stopped before them (a failing hook) checked nothing.
                let ran = Set(mine.map { "\($0.actor ?? "")\u{0}\($0.name)" })
                let checked = unit.checks.filter { ran.contains("\($0.actor)\u{0}\($0.name)") }
                if checked.isEmpty {
                    let stop = mine.first(where: \.isFailure).map { "\($0.name) failed" } ?? "no check ran"
                    lines.append("  " + pad(unit.suite, width) + "nothing checked: " + stop)
                    continue
                }
                var cells: [String] = []
                for op in ["select", "insert", "update", "delete"] {
                    let actors = checked.filter {
                        $0.operation == op && !($0.actor == "admin" && $0.statements.count == 1)
                    }.reduce(
                        into: [String]()
                    ) { acc, c in
                        // "M (user_metadata {…})" is M; names with spaces ("G1 owner") are kept whole.
                        let short = c.actor.components(separatedBy: " (").first ?? c.actor
                        if !acc.contains(short) { acc.append(short) }
                    }
                    let sep = actors.contains { $0.contains(" ") } ? ", " : " "
                    cells.append("\(op): " + (actors.isEmpty ? "-" : actors.joined(separator: sep)))
                }
                lines.append("  " + pad(unit.suite, width) + cells.joined(separator: " · "))
            }
        }
        if !plan.uncovered.isEmpty, !plan.accessFiles.isEmpty {
            lines.append(
                "uncovered: RLS enabled but no intent declared (--strict fails on these): "
                    + plan.uncovered.joined(separator: ", "))
        }
        return lines
    }

    static func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(1, n - s.count)) }
}
