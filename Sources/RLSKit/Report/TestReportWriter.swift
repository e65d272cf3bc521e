import Foundation

/// Renders a `TestReport` for people (text) or for CI (TAP 13, JUnit XML, JSON).
public enum TestReportWriter {
    public static func render(_ report: TestReport, format: TestReportFormat, color: Bool = false) -> String {
        switch format {
        case .text: return text(report, color: color)
        case .tap: return tap(report)
        case .junit: return junit(report)
        case .json: return json(report)
        }
    }

    // MARK: text

    /// Names are escaped one by one (a line break in one cannot start a line of its own), messages
    /// keep their lines, and the whole goes through `TextEscape.text` like every text output.
    static func text(_ r: TestReport, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        let line = TextEscape.line
        var out = ""
        for suite in r.suites {
            let items = r.outcomes.filter { $0.suite == suite }
            let bad = items.filter(\.isFailure).count
            out +=
                paint(line(suite), "1") + "  "
                + (bad == 0 ? paint("\(items.count) passed", "32") : paint("\(bad) of \(items.count) failed", "31"))
                + "\n"
            for o in items where o.status != .passed {
                let mark: String
                switch o.status {
                case .failed, .error: mark = paint("✗", "31")
                case .skipped: mark = paint("-", "33")
                case .todo: mark = paint("~", "33")
                case .passed: mark = "✓"
                }
                out += "  \(mark) " + (o.actor.map { "[\(line($0))] " } ?? "") + line(o.name)
                if let loc = o.location { out += paint("  (\(line(loc.description)))", "2") }
                out += "\n"
                if let m = o.message {
                    out +=
                        TextEscape.text(m).split(separator: "\n", omittingEmptySubsequences: false).map {
                            "      " + $0
                        }
                        .joined(separator: "\n") + "\n"
                }
                if o.isFailure, let sql = o.sql { out += paint("      sql: " + line(oneLine(sql)), "2") + "\n" }
            }
        }
        for n in r.notes { out += TextEscape.text(n) + "\n" }
        let summary =
            "\(r.count(.passed)) passed, \(r.failed) failed"
            + (r.count(.skipped) > 0 ? ", \(r.count(.skipped)) skipped" : "")
            + (r.count(.todo) > 0 ? ", \(r.count(.todo)) todo" : "")
        out += (r.passed ? paint(summary, "32") : paint(summary, "31")) + "\n"
        return TextEscape.text(out, color: color)
    }

    // MARK: TAP

    static func tap(_ r: TestReport) -> String {
        var out = "TAP version 13\n1..\(r.outcomes.count)\n"
        for (i, o) in r.outcomes.enumerated() {
            let ok = (o.tapOK ?? !o.isFailure) ? "ok" : "not ok"
            var line = "\(ok) \(i + 1) - " + tapEscape("\(o.suite): " + (o.actor.map { "[\($0)] " } ?? "") + o.name)
            let reason = (o.directiveReason ?? o.message).flatMap { $0.isEmpty ? nil : " " + tapEscape(oneLine($0)) }
            switch o.status {
            case .skipped: line += " # SKIP" + (reason ?? "")
            case .todo: line += " # TODO" + (reason ?? "")
            default: break
            }
            out += line + "\n"
            if o.isFailure {
                out += "  ---\n"
                if let m = o.message { out += "  message: " + yamlQuote(m) + "\n" }
                if let a = o.actor { out += "  actor: " + yamlQuote(a) + "\n" }
                if let l = o.location { out += "  at: " + yamlQuote(l.description) + "\n" }
                if let s = o.sql { out += "  sql: " + yamlQuote(s) + "\n" }
                out += "  ...\n"
            }
        }
        for n in r.notes { out += "# " + TextEscape.line(oneLine(n)) + "\n" }
        return out
    }

    static func tapEscape(_ s: String) -> String {
        TextEscape.line(
            oneLine(s).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "#", with: "\\#"))
    }

    /// YAML's own escapes for what may not be printed raw, so the value reads back the same.
    static func yamlQuote(_ s: String) -> String {
        let table: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"]
        let scalars = Array(s.unicodeScalars)
        var out = "\""
        for (i, c) in scalars.enumerated() {
            if let r = table[c] {
                out += r
            } else if TextEscape.isUnsafe(c) || TextEscape.oldCommand(scalars, at: i) {
                out += c.value <= 0xFF ? String(format: "\\x%02X", c.value) : String(format: "\\u%04X", c.value)
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    // MARK: JUnit

    static func junit(_ r: TestReport) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = r.outcomes.reduce(0) { $0 + $1.duration }
        out +=
            "<testsuites name=\"rlskit\" tests=\"\(r.outcomes.count)\" failures=\"\(r.count(.failed))\" errors=\"\(r.count(.error))\" skipped=\"\(r.count(.skipped) + r.count(.todo))\" time=\"\(seconds(total))\">\n"
        for suite in r.suites {
            let items = r.outcomes.filter { $0.suite == suite }
            let t = items.reduce(0) { $0 + $1.duration }
            out +=
                "  <testsuite name=\"\(xml(suite))\" tests=\"\(items.count)\" failures=\"\(items.count { $0.status == .failed })\" errors=\"\(items.count { $0.status == .error })\" skipped=\"\(items.count { $0.status == .skipped || $0.status == .todo })\" time=\"\(seconds(t))\">\n"
            for o in items {
                let name = (o.actor.map { "[\($0)] " } ?? "") + o.name
                var attrs = "classname=\"\(xml(suite))\" name=\"\(xml(name))\" time=\"\(seconds(o.duration))\""
                if let l = o.location { attrs += " file=\"\(xml(l.file))\" line=\"\(l.line)\"" }
                switch o.status {
                case .passed:
                    out += "    <testcase \(attrs)/>\n"
                case .skipped, .todo:
                    out +=
                        "    <testcase \(attrs)><skipped message=\"\(xml(o.message ?? o.status.rawValue))\"/></testcase>\n"
                case .failed, .error:
                    let tag = o.status == .failed ? "failure" : "error"
                    var body = o.message ?? ""
                    if let s = o.sql { body += "\nsql: " + s }
                    out +=
                        "    <testcase \(attrs)><\(tag) message=\"\(xml(oneLine(o.message ?? tag)))\">\(xml(body))</\(tag)></testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// Line breaks and the other characters a terminal or a CI log must not see raw are written
    /// as character references: the parsed value is the same, and no raw line of the document
    /// (on standard output, in a CI log) starts with what a name put there.
    static func xml(_ s: String) -> String {
        let table: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;"]
        let scalars = Array(s.unicodeScalars)
        var out = ""
        for (i, c) in scalars.enumerated() {
            if let r = table[c] {
                out += r
            } else if (c.value < 0x20 && !["\n", "\t", "\r"].contains(c)) || c.value == 0xFFFE || c.value == 0xFFFF {
                // XML 1.0 cannot carry other C0 control characters at all, even as references.
                out += "\u{FFFD}"
            } else if (TextEscape.isUnsafe(c) && c != "\t") || TextEscape.oldCommand(scalars, at: i) {
                out += "&#x\(String(c.value, radix: 16, uppercase: true));"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func seconds(_ t: Double) -> String { String(format: "%.3f", t) }

    // MARK: JSON

    static func json(_ r: TestReport) -> String { jsonValue(r).rendered() + "\n" }

    /// The report as one JSON value (keys sorted; absent values left out).
    static func jsonValue(_ r: TestReport) -> JSON {
        func outcome(_ o: TestOutcome) -> JSON {
            var pairs: [(String, JSON)] = [
                ("suite", .string(o.suite)), ("name", .string(o.name)), ("status", .string(o.status.rawValue)),
                ("duration", .double((o.duration * 1_000_000).rounded() / 1_000_000)),
            ]
            for (k, v) in [("message", o.message), ("file", o.location?.file), ("sql", o.sql), ("actor", o.actor)] {
                if let v { pairs.append((k, .string(v))) }
            }
            if let p = o.policies { pairs.append(("policies", .array(p.map(JSON.string)))) }
            if let line = o.location?.line { pairs.append(("line", .int(line))) }
            if let column = o.location?.column { pairs.append(("column", .int(column))) }
            return .sortedObject(pairs)
        }
        return .sortedObject([
            ("passed", .int(r.count(.passed))), ("failed", .int(r.failed)), ("skipped", .int(r.count(.skipped))),
            ("todo", .int(r.count(.todo))),
            ("outcomes", .array(r.outcomes.map(outcome))),
            ("notes", .array(r.notes.map(JSON.string))),
            (
                "sequences",
                .array(
                    r.sequences.map {
                        .sortedObject([
                            ("sequence", .string($0.sequence)), ("advancedBy", .int(Int($0.advancedBy))),
                            ("reset", .bool($0.reset)),
                        ])
                    })
            ),
        ])
    }

    static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
