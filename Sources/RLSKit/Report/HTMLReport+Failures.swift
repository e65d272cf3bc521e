import Foundation

/// The failures, first on the page: leaks (allowed, should be denied), lockouts (denied, should
/// be allowed), then everything else that failed (scenario steps, errors, tables not checked),
/// each linking to its cell.
extension HTMLReport {
    func failures(_ failed: [(anchor: String, outcome: TestOutcome)]) -> String {
        guard !failed.isEmpty else { return "" }
        let groups: [(String, String, [(anchor: String, outcome: TestOutcome)])] = [
            ("leaks", "Leaks: allowed, should be denied", failed.filter { Verdict($0.outcome) == .leak }),
            ("lockouts", "Lockouts: denied, should be allowed", failed.filter { Verdict($0.outcome) == .lockout }),
            (
                "errors", "Other failures: checks that failed or could not run",
                failed.filter { ![.leak, .lockout].contains(Verdict($0.outcome)) }
            ),
        ]
        var out =
            "<section aria-labelledby=\"failures\" class=\"failures\"><h2 id=\"failures\">"
            + "\(failed.count) failed</h2>\n"
        for (id, title, items) in groups where !items.isEmpty {
            out += "<h3 id=\"f-\(id)\">\(Self.h(title)) (\(items.count))</h3><ul>"
            for (anchor, o) in items {
                let who = o.actor.map { " · as " + Self.h($0) } ?? ""
                out += "<li><a href=\"#\(anchor)\">\(Self.h(o.suite))\(who): \(Self.h(o.name))</a>"
                if let e = o.expected, let g = o.got {
                    out += " — expected: \(Self.h(e)); got: \(Self.h(g))"
                } else if let m = o.message {
                    out += " — \(Self.h(Self.firstLine(m)))"
                }
                if let at = o.location { out += " <small>\(Self.h(at.description))</small>" }
                out += "</li>"
            }
            out += "</ul>\n"
        }
        return out + "</section>\n"
    }

    static func firstLine(_ s: String) -> String {
        let line = s.prefix { $0 != "\n" }
        return line.count > 300 ? line.prefix(300) + "…" : String(line)
    }
}
