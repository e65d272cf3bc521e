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

    static func text(_ r: TestReport, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        for suite in r.suites {
            let items = r.outcomes.filter { $0.suite == suite }
            let bad = items.filter(\.isFailure).count
            out += paint(suite, "1") + "  " + (bad == 0 ? paint("\(items.count) passed", "32") : paint("\(bad) of \(items.count) failed", "31")) + "\n"
            for o in items where o.status != .passed {
                let mark: String
                switch o.status {
                case .failed, .error: mark = paint("✗", "31")
                case .skipped: mark = paint("-", "33")
                case .todo: mark = paint("~", "33")
                case .passed: mark = "✓"
                }
                out += "  \(mark) " + (o.actor.map { "[\($0)] " } ?? "") + o.name
                if let loc = o.location { out += paint("  (\(loc))", "2") }
                out += "\n"
                if let m = o.message { out += m.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }.joined(separator: "\n") + "\n" }
                if o.isFailure, let sql = o.sql { out += paint("      sql: " + oneLine(sql), "2") + "\n" }
            }
        }
        for n in r.notes { out += n + "\n" }
        let line = "\(r.count(.passed)) passed, \(r.failed) failed" + (r.count(.skipped) > 0 ? ", \(r.count(.skipped)) skipped" : "")
            + (r.count(.todo) > 0 ? ", \(r.count(.todo)) todo" : "")
        out += (r.passed ? paint(line, "32") : paint(line, "31")) + "\n"
        return out
    }

    // MARK: TAP

    static func tap(_ r: TestReport) -> String {
        var out = "TAP version 13\n1..\(r.outcomes.count)\n"
        for (i, o) in r.outcomes.enumerated() {
            let ok = o.isFailure ? "not ok" : "ok"
            var line = "\(ok) \(i + 1) - " + tapEscape("\(o.suite): " + (o.actor.map { "[\($0)] " } ?? "") + o.name)
            switch o.status {
            case .skipped: line += " # SKIP" + (o.message.map { " " + tapEscape(oneLine($0)) } ?? "")
            case .todo: line += " # TODO" + (o.message.map { " " + tapEscape(oneLine($0)) } ?? "")
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
        for n in r.notes { out += "# " + oneLine(n) + "\n" }
        return out
    }

    static func tapEscape(_ s: String) -> String {
        oneLine(s).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "#", with: "\\#")
    }

    static func yamlQuote(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if c.value < 0x20 { out += String(format: "\\x%02X", c.value) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }

    // MARK: JUnit

    static func junit(_ r: TestReport) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let total = r.outcomes.reduce(0) { $0 + $1.duration }
        out += "<testsuites name=\"rlskit\" tests=\"\(r.outcomes.count)\" failures=\"\(r.count(.failed))\" errors=\"\(r.count(.error))\" skipped=\"\(r.count(.skipped) + r.count(.todo))\" time=\"\(seconds(total))\">\n"
        for suite in r.suites {
            let items = r.outcomes.filter { $0.suite == suite }
            let t = items.reduce(0) { $0 + $1.duration }
            out += "  <testsuite name=\"\(xml(suite))\" tests=\"\(items.count)\" failures=\"\(items.count { $0.status == .failed })\" errors=\"\(items.count { $0.status == .error })\" skipped=\"\(items.count { $0.status == .skipped || $0.status == .todo })\" time=\"\(seconds(t))\">\n"
            for o in items {
                let name = (o.actor.map { "[\($0)] " } ?? "") + o.name
                var attrs = "classname=\"\(xml(suite))\" name=\"\(xml(name))\" time=\"\(seconds(o.duration))\""
                if let l = o.location { attrs += " file=\"\(xml(l.file))\" line=\"\(l.line)\"" }
                switch o.status {
                case .passed:
                    out += "    <testcase \(attrs)/>\n"
                case .skipped, .todo:
                    out += "    <testcase \(attrs)><skipped message=\"\(xml(o.message ?? o.status.rawValue))\"/></testcase>\n"
                case .failed, .error:
                    let tag = o.status == .failed ? "failure" : "error"
                    var body = o.message ?? ""
                    if let s = o.sql { body += "\nsql: " + s }
                    out += "    <testcase \(attrs)><\(tag) message=\"\(xml(oneLine(o.message ?? tag)))\">\(xml(body))</\(tag)></testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(c)
            default:
                // XML 1.0 cannot carry other control characters at all.
                if c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    static func seconds(_ t: Double) -> String { String(format: "%.3f", t) }

    // MARK: JSON

    struct JSONOutcome: Encodable {
        var suite: String, name: String, status: String
        var message: String?, file: String?, line: Int?, column: Int?, sql: String?, actor: String?
        var duration: Double
    }
    struct JSONReport: Encodable {
        var passed: Int, failed: Int, skipped: Int, todo: Int
        var outcomes: [JSONOutcome]
        var notes: [String]
        var sequences: [JSONSequence]
    }
    struct JSONSequence: Encodable {
        var sequence: String, advancedBy: Int64, reset: Bool
    }

    static func json(_ r: TestReport) -> String {
        let doc = JSONReport(
            passed: r.count(.passed), failed: r.failed, skipped: r.count(.skipped), todo: r.count(.todo),
            outcomes: r.outcomes.map {
                JSONOutcome(suite: $0.suite, name: $0.name, status: $0.status.rawValue, message: $0.message,
                            file: $0.location?.file, line: $0.location?.line, column: $0.location?.column,
                            sql: $0.sql, actor: $0.actor, duration: ($0.duration * 1_000_000).rounded() / 1_000_000)
            },
            notes: r.notes,
            sequences: r.sequences.map { JSONSequence(sequence: $0.sequence, advancedBy: $0.advancedBy, reset: $0.reset) })
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? enc.encode(doc)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    static func oneLine(_ s: String) -> String {
        s.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
