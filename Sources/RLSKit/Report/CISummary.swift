import Foundation

/// The Markdown a CI job shows on its summary page (`GITHUB_STEP_SUMMARY`, `--summary FILE`):
/// the verdict, the phases, the counts, the failing checks as one compact table and the audit
/// findings by level.
public enum CISummary {
    public struct Phase: Sendable {
        public var name: String
        public var ok: Bool
        public var summary: String
        public init(name: String, ok: Bool, summary: String) {
            self.name = name
            self.ok = ok
            self.summary = summary
        }
    }

    /// Failing rows listed before the table says "and N more".
    static let failureLimit = 50

    /// `database`: the one of several this section is about, named in its heading.
    public static func markdown(
        command: String, on database: String? = nil, verdict: String, phases: [Phase] = [], notes: [String] = [],
        tests: TestReport?, audit: AuditReport?
    ) -> String {
        let on = database.map { " on " + code($0, inTable: false) } ?? ""
        var out = "## rlskit \(prose(command))\(on): \(prose(verdict))\n\n"
        if !phases.isEmpty {
            out += "| | phase | result |\n|---|---|---|\n"
            for p in phases { out += "| \(p.ok ? "✅" : "❌") | \(prose(p.name)) | \(prose(p.summary)) |\n" }
            out += "\n"
        }
        for n in notes { out += prose(n) + "\n\n" }
        if let tests { out += testsSection(tests) }
        if let audit { out += auditSection(audit) }
        return out
    }

    static func testsSection(_ tests: TestReport) -> String {
        var out =
            "**checks:** \(tests.count(.passed)) passed, \(tests.failed) failed, \(tests.count(.skipped)) skipped\n\n"
        let failing = tests.outcomes.filter(\.isFailure)
        guard !failing.isEmpty else { return out }
        out += "| table or file | actor | check | expected vs got | declared at |\n|---|---|---|---|---|\n"
        for o in failing.prefix(failureLimit) {
            out +=
                "| \(code(o.suite)) | \(code(o.actor ?? "")) | \(prose(o.name)) | \(prose(o.message ?? "")) | \(code(o.location?.description ?? "")) |\n"
        }
        if failing.count > failureLimit { out += "\nand \(failing.count - failureLimit) more failing checks\n" }
        return out + "\n"
    }

    static func auditSection(_ audit: AuditReport) -> String {
        var out = "**audit:** \(prose(audit.summaryLine))\n\n"
        for level in FindingLevel.allCases.reversed() {
            let group = audit.findings.filter { $0.level == level }
            if group.isEmpty { continue }
            out += "<details\(level == .error ? " open" : "")><summary>\(level.label) (\(group.count))</summary>\n\n"
            out += "| lint | object | fix | fingerprint |\n|---|---|---|---|\n"
            for f in group {
                out +=
                    "| \(code(f.lint)) | \(code(f.object.display)) | \(prose(f.remediation)) | \(code(f.fingerprint)) |\n"
            }
            out += "\n</details>\n\n"
        }
        return out
    }

    /// A name (table, file, actor, lint, object, database) as a code span, whose fence is longer
    /// than any run of backticks inside, so it shows literally; in a table `|` escaped (GitHub
    /// splits cells on it even inside code); line breaks and controls as `\u{…}` (one line).
    static func code(_ s: String, inTable: Bool = true) -> String {
        guard !s.isEmpty else { return "" }
        let text = inTable ? TextEscape.line(s).replacingOccurrences(of: "|", with: "\\|") : TextEscape.line(s)
        var longest = 0
        var run = 0
        for c in text {
            run = c == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        // A space inside each end, which Markdown strips, keeps a backtick at an end off the fence.
        let pad = text.first == "`" || text.last == "`" || text.first == " " || text.last == " " ? " " : ""
        return fence + pad + text + pad + fence
    }

    /// Text (a check, a message, a fix) on one line in a cell or a paragraph: line breaks folded
    /// to spaces, controls as `\u{…}`, HTML inert, and every character that could start Markdown
    /// (emphasis, code, links, images, math, a cell's end, a web address) escaped.
    static func prose(_ s: String) -> String {
        let chars = Array(TextEscape.line(s.split(whereSeparator: \.isNewline).joined(separator: " ")))
        var out = ""
        for (i, c) in chars.enumerated() {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "~", "[", "]", "|", "!", "$": out += "\\" + String(c)
            // "https://x" and "www.x" become links by themselves.
            case ":" where chars.dropFirst(i + 1).starts(with: ["/", "/"]): out += "\\:"
            case "." where i >= 3 && String(chars[(i - 3)..<i]).lowercased() == "www": out += "\\."
            default: out.append(c)
            }
        }
        return out
    }

    /// GitHub annotations: each failing check on its declaring `file:line` (a plain error when
    /// it has none), then the audit findings.
    public static func annotations(tests: TestReport?, audit: AuditReport?) -> String {
        var out = ""
        for o in tests?.outcomes ?? [] where o.isFailure {
            let title = "rlskit: \(o.suite) " + (o.actor.map { "[\($0)] " } ?? "") + o.name
            out +=
                GitHubAnnotations.line(level: "error", title: title, message: o.message ?? o.name, at: o.location)
                + "\n"
        }
        for f in audit?.findings ?? [] {
            let level = f.level == .error ? "error" : f.level == .warn ? "warning" : "notice"
            out +=
                GitHubAnnotations.line(
                    level: level, title: "rlskit \(f.lint)",
                    message: "\(f.object.display): \(f.detail). Fix: \(f.remediation) (fingerprint \(f.fingerprint))")
                + "\n"
        }
        return out
    }
}
