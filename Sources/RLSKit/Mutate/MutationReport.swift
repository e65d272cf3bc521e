import Foundation

/// What `mutate` found: every mutant with its status, the score per table and overall.
public struct MutationReport: Sendable {
    public var mutants: [Mutant]
    /// One run of the whole suite before any mutant.
    public var baselineMilliseconds: Int
    public var milliseconds: Int
    public var migrations: Int
    /// Test cases in one run of the suite.
    public var tests: Int

    public struct Score: Sendable, Equatable {
        public var killed: Int
        /// Every mutant that is not equivalent (errors included: they were not shown killed).
        public var counted: Int
        /// Percent, 100 when nothing counts.
        public var percent: Double { counted == 0 ? 100 : Double(killed) * 100 / Double(counted) }
        public var text: String { String(format: "%.0f%%", percent) + " (\(killed)/\(counted))" }
    }

    static func score(_ ms: [Mutant]) -> Score {
        Score(killed: ms.count { $0.status == .killed }, counted: ms.count { $0.status != .equivalent })
    }

    public var score: Score { Self.score(mutants) }
    public func count(_ s: Mutant.Status) -> Int { mutants.count { $0.status == s } }

    /// Per table, in name order.
    public var tables: [(table: String, score: Score)] {
        Dictionary(grouping: mutants, by: \.table).map { ($0.key, Self.score($0.value)) }.sorted { $0.table < $1.table }
    }

    /// Survivors first, then errors, killed and equivalent; each group in table order.
    public var ordered: [Mutant] {
        let rank: [Mutant.Status: Int] = [.survived: 0, .error: 1, .killed: 2, .equivalent: 3]
        return mutants.enumerated().sorted { a, b in
            let (ra, rb) = (rank[a.element.status]!, rank[b.element.status]!)
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    public var verdict: String {
        "\(count(.killed)) killed, \(count(.survived)) survived, \(count(.equivalent)) equivalent"
            + (count(.error) > 0 ? ", \(count(.error)) error" : "") + "; score \(score.text)"
    }

    /// The mutant's subject: `policy "x" on public.t`, or the table.
    static func subject(_ m: Mutant) -> String {
        m.policy.map { "policy \(SQL.display($0, always: true)) on \(m.table)" } ?? m.table
    }

    /// The terminal report: each survivor with where it was made and a test to add.
    public func text() -> String {
        var out = ""
        for m in ordered where m.status == .survived || m.status == .error {
            out +=
                "\(m.status == .survived ? "SURVIVED" : "ERROR") \(Self.subject(m))"
                + (m.location.map { " (\($0))" } ?? "") + "\n  mutation: \(m.mutation)\n"
            if let note = m.note { out += "  \(note)\n" }
            if let s = m.suggestion {
                out +=
                    "  a test that kills it (access file):\n"
                    + s.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
            }
            if let s = m.pgtapSuggestion {
                out +=
                    "  \(m.suggestion == nil ? "a test that kills it" : "or") (pgTAP):\n"
                    + s.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
            }
        }
        for (table, s) in tables { out += "  \(table): \(s.text)\n" }
        return out
    }

    public func json() -> String {
        let doc = JSON.sortedObject([
            ("score", .double(score.percent)),
            ("killed", .int(count(.killed))), ("survived", .int(count(.survived))),
            ("equivalent", .int(count(.equivalent))), ("errors", .int(count(.error))),
            ("milliseconds", .int(milliseconds)), ("baselineMilliseconds", .int(baselineMilliseconds)),
            (
                "tables",
                .array(
                    tables.map {
                        .sortedObject([
                            ("table", .string($0.table)), ("score", .double($0.score.percent)),
                            ("killed", .int($0.score.killed)), ("counted", .int($0.score.counted)),
                        ])
                    })
            ),
            (
                "mutants",
                .array(
                    mutants.map { m in
                        .sortedObject([
                            ("table", .string(m.table)), ("policy", .optional(m.policy)),
                            ("file", .optional(m.location?.file)), ("line", m.location.map { .int($0.line) } ?? .null),
                            ("mutation", .string(m.mutation)), ("kind", .string(m.kind)),
                            ("status", .string(m.status.rawValue)), ("killedBy", .optional(m.killedBy)),
                            ("note", .optional(m.note)), ("suggestion", .optional(m.suggestion)),
                            ("pgtap", .optional(m.pgtapSuggestion)),
                        ])
                    })
            ),
        ])
        return doc.rendered() + "\n"
    }

    /// The CI step summary: the verdict, the score per table, the survivors.
    public func markdown() -> String {
        var out = "## rlskit mutate: \(CISummary.prose(verdict))\n\n| table | score |\n|---|---|\n"
        for (t, s) in tables { out += "| \(CISummary.code(t)) | \(CISummary.prose(s.text)) |\n" }
        let survivors = ordered.filter { $0.status == .survived }
        if !survivors.isEmpty {
            out += "\n| survivor | mutation | created at |\n|---|---|---|\n"
            for m in survivors {
                out +=
                    "| \(CISummary.prose(Self.subject(m))) | \(CISummary.prose(m.mutation)) | \(CISummary.code(m.location?.description ?? "")) |\n"
            }
        }
        return out
    }

    /// One GitHub warning per survivor, on the migration line that created what it changed.
    public func annotations() -> String {
        ordered.filter { $0.status == .survived }.map { m in
            GitHubAnnotations.line(
                level: "warning", title: "mutant survived: \(Self.subject(m))",
                message: m.mutation + (m.suggestion.map { "; a test that kills it: " + $0 } ?? ""), at: m.location)
                + "\n"
        }.joined()
    }

    /// A self-contained page, survivors first.
    public func html() -> String {
        let h = HTMLReport.h
        var rows = ""
        for m in ordered {
            rows +=
                "<tr class=\"\(m.status.rawValue)\"><td>\(m.status.rawValue)</td><td>\(h(Self.subject(m)))</td>"
                + "<td>\(h(m.mutation))</td><td>\(h(m.location?.description ?? ""))</td>"
                + "<td>\(h(m.killedBy ?? m.note ?? ""))</td><td><pre>\(h([m.suggestion, m.pgtapSuggestion].compactMap { $0 }.joined(separator: "\n\n")))</pre></td></tr>\n"
        }
        var tableRows = ""
        for (t, s) in tables { tableRows += "<tr><td>\(h(t))</td><td>\(h(s.text))</td></tr>\n" }
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>rlskit mutate</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}
            td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}pre{margin:0}
            tr.survived td:first-child{color:#b00;font-weight:bold}tr.killed td:first-child{color:#070}
            tr.equivalent td:first-child{color:#777}</style></head><body>
            <h1>rlskit mutate: \(h(verdict))</h1>
            <table><tr><th>table</th><th>score</th></tr>
            \(tableRows)</table>
            <table><tr><th>status</th><th>subject</th><th>mutation</th><th>created at</th><th>killed by / note</th><th>a test that kills it</th></tr>
            \(rows)</table>
            <p>rlskit \(h(RLSKitVersion.current))</p></body></html>

            """
    }
}
