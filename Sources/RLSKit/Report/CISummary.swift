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

    public static func markdown(
        command: String, verdict: String, phases: [Phase] = [], notes: [String] = [], tests: TestReport?,
        audit: AuditReport?
    ) -> String {
        var out = "## rlskit \(command): \(cell(verdict))\n\n"
        if !phases.isEmpty {
            out += "| | phase | result |\n|---|---|---|\n"
            for p in phases { out += "| \(p.ok ? "✅" : "❌") | \(p.name) | \(cell(p.summary)) |\n" }
            out += "\n"
        }
        for n in notes { out += cell(n) + "\n\n" }
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
                "| \(cell(o.suite)) | \(cell(o.actor ?? "")) | \(cell(o.name)) | \(cell(o.message ?? "")) | \(cell(o.location?.description ?? "")) |\n"
        }
        if failing.count > failureLimit { out += "\nand \(failing.count - failureLimit) more failing checks\n" }
        return out + "\n"
    }

    static func auditSection(_ audit: AuditReport) -> String {
        var out = "**audit:** \(cell(audit.summaryLine))\n\n"
        for level in FindingLevel.allCases.reversed() {
            let group = audit.findings.filter { $0.level == level }
            if group.isEmpty { continue }
            out += "<details\(level == .error ? " open" : "")><summary>\(level.label) (\(group.count))</summary>\n\n"
            out += "| lint | object | fix | fingerprint |\n|---|---|---|---|\n"
            for f in group {
                out +=
                    "| \(cell(f.lint)) | \(cell(f.object.display)) | \(cell(f.remediation)) | `\(f.fingerprint)` |\n"
            }
            out += "\n</details>\n\n"
        }
        return out
    }

    /// One table cell: no line breaks, pipes escaped, HTML inert.
    static func cell(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: " ")
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
