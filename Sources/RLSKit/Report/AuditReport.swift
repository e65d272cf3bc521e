import Foundation

/// An audit result after the baseline, in every output format.
public struct AuditReport: Sendable {
    public var result: AuditResult
    public var findings: [Finding]
    public var suppressed: [(finding: Finding, reason: String)]
    /// Baseline fingerprints that matched no finding (fixed, or the object was renamed).
    public var unusedBaseline: [String]

    public init(result: AuditResult, baseline: Baseline = Baseline()) {
        self.result = result
        let applied = baseline.apply(result.findings)
        findings = applied.reported
        suppressed = applied.suppressed.map { ($0.0, $0.1) }
        unusedBaseline = applied.unused
    }

    public func count(_ level: FindingLevel) -> Int { findings.filter { $0.level == level }.count }

    /// True when a reported finding is at or above `threshold`.
    public func fails(at threshold: FindingLevel) -> Bool { findings.contains { $0.level >= threshold } }

    /// Schema names come from the database's settings too: each escaped, so the note is the only second line.
    public var schemasLine: String {
        let names = result.exposed.names.map(TextEscape.line)
        let missing = result.missingSchemas.map(TextEscape.line)
        var line =
            "exposed schemas checked: \(names.joined(separator: ", ")) (\(TextEscape.line(result.exposed.source))); storage policies are audited too"
        if !missing.isEmpty {
            line +=
                "\nnote: exposed schema\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")) not found in this database"
        }
        return line
    }

    /// `2 errors (proven), 3 warnings (1 not proven: …), 0 info`: what the proofs did, in short.
    public var levelsLine: String {
        var errors = plural(count(.error), "error")
        let proven = findings.filter { $0.level == .error && $0.proof?.outcome == .proven }.count
        let readOnly = findings.filter { $0.level == .error && $0.proof?.outcome == .readOnly }.count
        if proven > 0 { errors += proven == count(.error) ? " (proven)" : " (\(proven) proven)" }
        if readOnly > 0 { errors += " (\(readOnly == count(.error) ? "" : "\(readOnly) ")not proven: read-only)" }
        var warnings = plural(count(.warn), "warning")
        let demoted = findings.filter { $0.proof?.demotedFrom != nil }
        if !demoted.isEmpty {
            // The first clause of each reason: the findings carry the rest.
            let reasons = Set(
                demoted.compactMap { f in
                    f.proof.map { p in
                        let first = p.reason.components(separatedBy: "; ")[0]
                        return first + (first.count < p.reason.count ? "; …" : "")
                    }
                })
            warnings +=
                " (\(demoted.count) not proven: "
                + (reasons.count == 1 ? TextEscape.line(reasons.first!) : "see each finding") + ")"
        }
        return "\(errors), \(warnings), \(count(.info)) info"
    }

    public var summaryLine: String {
        var s = levelsLine
        if !suppressed.isEmpty { s += "; \(suppressed.count) suppressed by the baseline" }
        return s + " (\(result.lintsRun.count) lints, \(String(format: "%.2f", result.seconds)) s)"
    }

    // MARK: text

    /// Names and server messages are escaped one by one (a line break in one cannot start a
    /// line), and the whole goes through `TextEscape.text` like every text output.
    public func text(color: Bool) -> String {
        func paint(_ t: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(t)\u{1B}[0m" : t }
        let line = TextEscape.line
        var out = TextEscape.text(schemasLine) + "\n"
        for (lint, message) in result.failedLints.sorted(by: { $0.key < $1.key }) {
            out += paint("lint \(lint) could not run: \(line(message))", "33") + "\n"
        }
        for level in FindingLevel.allCases.reversed() {
            let group = findings.filter { $0.level == level }
            if group.isEmpty { continue }
            let code = level == .error ? "1;31" : level == .warn ? "1;33" : "1"
            out += "\n" + paint("\(level.label) (\(group.count))", code) + "\n"
            for f in group {
                out += "  " + paint(f.lint, "1") + "  " + line(f.object.display) + "\n"
                out += "    " + line(f.detail) + "\n"
                if let p = f.proof { out += "    " + paint(line(p.line), p.outcome == .proven ? "1" : "2") + "\n" }
                out += "    " + paint("fix: " + line(f.remediation), "2") + "\n"
                out += "    " + paint("fingerprint: " + f.fingerprint, "2") + "\n"
            }
        }
        if !unusedBaseline.isEmpty {
            out +=
                "\nbaseline entries that matched nothing (remove them): \(unusedBaseline.map(line).joined(separator: ", "))\n"
        }
        out += "\n" + summaryLine + "\n"
        return TextEscape.text(out, color: color)
    }

    // MARK: json

    public func json() -> String { jsonValue().rendered() + "\n" }

    /// The report as one JSON value.
    func jsonValue() -> JSON {
        var pairs: [(String, JSON)] = [
            ("tool", .string("rlskit")),
            ("version", .string(RLSKitVersion.current)),
            ("exposed_schemas", .array(result.exposed.names.map(JSON.string))),
            ("exposed_schemas_source", .string(result.exposed.source)),
            ("missing_schemas", .array(result.missingSchemas.map(JSON.string))),
            (
                "summary",
                .object([
                    ("error", .int(count(.error))), ("warn", .int(count(.warn))), ("info", .int(count(.info))),
                    ("suppressed", .int(suppressed.count)),
                ])
            ),
            ("findings", .array(findings.map(Self.json))),
            (
                "suppressed",
                .array(
                    suppressed.map {
                        .object([
                            ("fingerprint", .string($0.finding.fingerprint)),
                            ("lint", .string($0.finding.lint)),
                            ("reason", .string($0.reason)),
                        ])
                    })
            ),
        ]
        if !unusedBaseline.isEmpty { pairs.append(("unused_baseline", .array(unusedBaseline.map(JSON.string)))) }
        pairs.append(("failed_lints", .sorted(result.failedLints)))
        return JSON.object(pairs)
    }

    static func json(_ f: Finding) -> JSON {
        .object(
            [
                ("name", .string(f.lint)),
                ("id", .string(f.lintId)),
                ("title", .string(f.title)),
                ("level", .string(f.level.rawValue)),
                ("categories", .array(f.categories.map { .string($0.rawValue) })),
                (
                    "object",
                    .object([
                        ("schema", .string(f.object.schema)), ("name", .string(f.object.name)),
                        ("kind", .string(f.object.kind)), ("member", .optional(f.object.member)),
                    ])
                ),
                ("detail", .string(f.detail)),
                ("remediation", .string(f.remediation)),
                ("metadata", .sorted(f.metadata)),
                ("fingerprint", .string(f.fingerprint)),
            ] + (f.proof.map { [("proof", $0.json)] } ?? []))
    }

    // MARK: sarif

    static func sarifLevel(_ l: FindingLevel) -> String { l == .error ? "error" : l == .warn ? "warning" : "note" }

    public func sarif() -> String {
        var rules = result.lintsRun.map { l in
            SARIF.Rule(
                id: l.name, name: l.title, shortDescription: l.title, fullDescription: l.description,
                help: l.remediation, level: Self.sarifLevel(l.level),
                tags: l.categories.map { $0.rawValue.lowercased() },
                helpUri: l.docsURL)
        }
        // Findings of no lint (the inferred attack's) have their rule too.
        for extra in [InferredAttack.sarifRule]
        where findings.contains(where: { $0.lint == extra.id }) && !rules.contains(where: { $0.id == extra.id }) {
            rules.append(extra)
        }
        let results = findings.map { f in
            SARIF.Result(
                ruleId: f.lint, level: Self.sarifLevel(f.level),
                message: f.detail + (f.proof.map { ". " + $0.line } ?? ""),
                fullyQualifiedName: f.object.qualifiedName, name: f.object.member ?? f.object.name,
                kind: f.object.kind, fingerprint: f.fingerprint,
                properties: f.metadata.merging(f.proof?.properties ?? [:]) { $1 })
        }
        return SARIF.log(toolVersion: RLSKitVersion.current, rules: rules, results: results).rendered() + "\n"
    }

    // MARK: github

    public func github() -> String {
        var out = ""
        for f in findings {
            let level = f.level == .error ? "error" : f.level == .warn ? "warning" : "notice"
            out +=
                GitHubAnnotations.line(
                    level: level, title: "rlskit \(f.lint)",
                    message:
                        "\(f.detail). \(f.proof.map { $0.line + ". " } ?? "")Fix: \(f.remediation) (fingerprint \(f.fingerprint))"
                ) + "\n"
        }
        // The annotations are safe by construction; the plain lines after them are text.
        return out + TextEscape.text(schemasLine + "\n" + summaryLine + "\n")
    }
}

func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
