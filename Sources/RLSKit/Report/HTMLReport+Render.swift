import Foundation

extension HTMLReport {
    /// The whole page. Check details sit in one JSON block the page reads on the first click,
    /// so a report of thousands of tables loads as fast as its plain markup.
    public func render() -> String {
        var out = ""
        out.reserveCapacity(tests.outcomes.count * 160 + 16_384)
        let title = "rlskit \(command): \(verdict)"
        out += "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        out += "<title>\(Self.h(title))</title><style>\(Self.style)</style></head><body>\n"
        let bad = verdict != "passed"
        out +=
            "<header><h1>rlskit \(Self.h(command)): <span class=\"\(bad ? "v-bad" : "v-ok")\">\(Self.h(verdict))</span></h1>\n"
        out += "<dl class=\"facts\">"
        for (k, v) in facts { out += "<dt>\(Self.h(k))</dt><dd>\(Self.h(v))</dd>" }
        out += "</dl>\n" + legend + "</header>\n<main>\n"
        var data = Details()
        let index = Dictionary(grouping: policies, by: \.table)
        // The checks first, so that the failures listed above them can link to their cells.
        var body = command != "audit" ? grids(&data, index) : ""
        body += others(&data, index)
        out += failures(data.failures) + body
        if let audit { out += findings(audit) }
        if !tests.notes.isEmpty || !untested.isEmpty {
            out += "<section aria-labelledby=\"notes\"><h2 id=\"notes\">Coverage and notes</h2><ul>"
            if !untested.isEmpty {
                out +=
                    "<li>untested (row level security on, no tests): \(Self.h(untested.joined(separator: ", ")))</li>"
            }
            for n in tests.notes { out += "<li><pre>\(Self.h(n))</pre></li>" }
            out += "</ul></section>\n"
        }
        out += "</main>\n<aside id=\"detail\" aria-live=\"polite\" aria-labelledby=\"detail-title\" hidden></aside>\n"
        // No "<" in the block at all: a name holding "</script>" or "<!--<script>" cannot end or
        // swallow the page's script.
        let json = JSON.object([("checks", .array(data.entries)), ("policies", .array(data.groups))])
            .rendered(pretty: false, scriptSafe: true)
        out += "<script type=\"application/json\" id=\"checks\">\(json)</script>\n"
        out += "<script>\(Self.script)</script>\n</body></html>\n"
        return out
    }

    var legend: String {
        "<p class=\"legend\">"
            + [HTMLReport.Verdict.allowed, .denied, .leak, .lockout, .error, .skipped].map {
                "<span class=\"c-\($0.rawValue)\">\(Self.h($0.short))</span> \(Self.h($0.words))"
            }.joined(separator: " · ") + "</p>\n"
    }

    /// The details block: per check [suite, name, actor, verdict, expected, got, message, sql,
    /// file:line, policy group, responsible policies, database role], with the policy lines stored once per table and command.
    struct Details {
        var entries: [JSON] = []
        var groups: [JSON] = []
        var groupIndex: [String: Int] = [:]
        /// Failed checks in the order shown, each with its anchor: a cell's `c<i>`, or the
        /// table's `t<i>` for a table that could not be checked.
        var failures: [(anchor: String, outcome: TestOutcome)] = []
        var tables = 0
        var count: Int { entries.count }
    }

    func add(_ o: TestOutcome, to details: inout Details, _ index: [String: [Policy]]) {
        if o.isFailure { details.failures.append(("c\(details.count)", o)) }
        let cmd = o.operation?.uppercased() ?? ""
        let role = Self.role(o)
        let key = o.suite + "\u{0}" + cmd + "\u{0}" + (role ?? "")
        if details.groupIndex[key] == nil {
            let table = o.suite.hasPrefix("bucket ") ? "storage.objects" : o.suite
            let bucket = o.suite.hasPrefix("bucket ") ? String(o.suite.dropFirst(7)) : nil
            // Only the policies PostgreSQL applies to this role (service_role bypasses them all).
            let mine = (index[table] ?? []).filter { p in
                guard p.command == "ALL" || p.command == cmd, role != "service_role" else { return false }
                let roles = p.roles.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard role == nil || roles.contains("public") || roles.contains(role!) else { return false }
                guard let bucket else { return true }
                return (p.using ?? "").contains("'\(bucket)'") || (p.check ?? "").contains("'\(bucket)'")
            }
            let lines: [JSON] = mine.map { p in
                var line = "\(p.name) (for \(p.command.lowercased()) to \(p.roles))"
                if let u = p.using { line += " using (\(u))" }
                if let c = p.check { line += " with check (\(c))" }
                return .string(line)
            }
            details.groupIndex[key] = details.groups.count
            details.groups.append(.array(lines))
        }
        details.entries.append(
            .array([
                .string(o.suite), .string(o.name), .optional(o.actor), .string(Verdict(o).words), .optional(o.expected),
                .optional(o.got), .optional(o.message), .optional(o.sql), .optional(o.location?.description),
                .int(details.groupIndex[key]!), o.policies.map { .array($0.map(JSON.string)) } ?? .null,
                .optional(role),
            ]))
    }

    func grids(_ data: inout Details, _ index: [String: [Policy]]) -> String {
        var out = "<section aria-labelledby=\"access\"><h2 id=\"access\">Who can do what</h2>\n"
        var order: [String] = []
        var bySuite: [String: [(TestOutcome, (actor: String, column: String, object: String))]] = [:]
        var notCovered: [String: TestOutcome] = [:]
        for o in tests.outcomes {
            if o.name == "not covered" {
                if notCovered[o.suite] == nil, bySuite[o.suite] == nil { order.append(o.suite) }
                notCovered[o.suite] = o
            } else if let c = Self.cell(o) {
                if bySuite[o.suite] == nil, notCovered[o.suite] == nil { order.append(o.suite) }
                bySuite[o.suite, default: []].append((o, c))
            }
        }
        if order.isEmpty { out += "<p>No table or bucket was checked.</p>\n" }
        for table in untested {
            out += "<div class=\"t\"><table><caption>\(Self.h(table))</caption><tbody><tr><td class=\"c-skipped\">"
            out +=
                "– not covered: row level security is on, but no tests say who may do what here</td></tr></tbody></table></div>\n"
        }
        for suite in order {
            let at =
                (bySuite[suite]?.first?.0 ?? notCovered[suite])?.location.map {
                    " <small>\(Self.h($0.description))</small>"
                } ?? ""
            let anchor = "t\(data.tables)"
            data.tables += 1
            out += "<div class=\"t\" id=\"\(anchor)\"><table><caption>\(Self.h(suite))\(at)</caption>"
            if let skip = notCovered[suite], bySuite[suite] == nil {
                if skip.isFailure { data.failures.append((anchor, skip)) }
                out +=
                    "<tbody><tr><td class=\"c-skipped\">\(Self.h(Self.notCoveredText(skip)))</td></tr></tbody></table></div>\n"
                continue
            }
            let rows = bySuite[suite] ?? []
            let columns = (suite.hasPrefix("bucket ") ? Self.bucketColumns : Self.tableColumns).filter { col in
                rows.contains { $0.1.column == col }
            }
            var seen: [String] = []
            for (_, c) in rows where !seen.contains(c.actor) { seen.append(c.actor) }
            let actors = Self.orderActors(seen)
            out += "<thead><tr><th scope=\"col\">actor</th>"
            for c in columns { out += "<th scope=\"col\">\(c)</th>" }
            out += "</tr></thead><tbody>"
            for actor in actors {
                out += "<tr><th scope=\"row\">\(Self.h(actor))</th>"
                for column in columns {
                    let here = rows.filter { $0.1.actor == actor && $0.1.column == column }
                    if here.isEmpty {
                        out += "<td class=\"none\">not checked</td>"
                        continue
                    }
                    out += "<td>"
                    for (o, c) in here {
                        let v = Verdict(o)
                        out +=
                            "<button data-i=\"\(data.count)\" class=\"c-\(v.rawValue)\">\(Self.h(c.object)): \(Self.h(v.short))</button>"
                        add(o, to: &data, index)
                    }
                    out += "</td>"
                }
                out += "</tr>"
            }
            out += "</tbody></table></div>\n"
        }
        return out + "</section>\n"
    }

    /// Scenario steps, pgTAP assertions and the RLS probe: one row each.
    func others(_ data: inout Details, _ index: [String: [Policy]]) -> String {
        let rest = tests.outcomes.filter { $0.name != "not covered" && Self.cell($0) == nil }
        guard !rest.isEmpty else { return "" }
        var out = "<section aria-labelledby=\"other\"><h2 id=\"other\">Other checks</h2><div class=\"t\"><table>"
        out +=
            "<thead><tr><th scope=\"col\">result</th><th scope=\"col\">suite</th><th scope=\"col\">actor</th><th scope=\"col\">check</th></tr></thead><tbody>"
        for o in rest {
            let v = Verdict(o)
            let word = o.status == .passed ? "✓ passed" : o.isFailure ? "✗ failed" : "– \(o.status.rawValue)"
            out +=
                "<tr><td><button data-i=\"\(data.count)\" class=\"c-\(o.status == .passed ? "allowed" : v.rawValue)\">\(word)</button></td><td>\(Self.h(o.suite))</td><td>\(Self.h(o.actor ?? ""))</td><td>\(Self.h(o.name))</td></tr>"
            add(o, to: &data, index)
        }
        return out + "</tbody></table></div></section>\n"
    }

    func findings(_ audit: AuditReport) -> String {
        var out = "<section aria-labelledby=\"audit\"><h2 id=\"audit\">Audit findings</h2>"
        out += "<p>\(Self.h(audit.summaryLine))</p>"
        guard !audit.findings.isEmpty else { return out + "</section>\n" }
        out +=
            "<div class=\"t\"><table><thead><tr><th scope=\"col\">level</th><th scope=\"col\">lint</th><th scope=\"col\">object</th><th scope=\"col\">detail</th><th scope=\"col\">fix</th><th scope=\"col\">fingerprint</th></tr></thead><tbody>"
        for f in audit.findings.sorted(by: { $0.level > $1.level }) {
            out +=
                "<tr class=\"l-\(f.level.rawValue)\"><td>\(f.level.label)</td><td>\(Self.h(f.lint))</td><td>\(Self.h(f.object.display))</td><td>\(Self.h(f.detail))\(f.proof.map { "<br><span class=\"proof\">\(Self.h($0.line))</span>" } ?? "")</td><td><code>\(Self.h(f.remediation))</code></td><td><code>\(Self.h(f.fingerprint))</code></td></tr>"
        }
        return out + "</tbody></table></div></section>\n"
    }

    /// "– not covered (why)": the reason without the harness's own "not covered: " lead.
    static func notCoveredText(_ o: TestOutcome) -> String {
        var why = o.message ?? "no reason given"
        if why.hasPrefix("not covered: ") { why.removeFirst(13) }
        return "– not covered (\(why))"
    }

    /// Markup-safe text; the characters a terminal must not see raw are shown as `\u{…}` here
    /// too (line breaks and tabs kept), so a name reads the same in every report.
    static func h(_ s: String) -> String {
        TextEscape.escape(s, ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]) { c in
            c != "\n" && c != "\t" && TextEscape.isUnsafe(c) ? TextEscape.visible(c) : nil
        }
    }
}
