@_spi(CLI) import RLSKit

/// `--format`: one parser for every command; each command names the formats it writes.
enum OutputFormat: String, Sendable {
    case text, tap, junit, json, sarif, github

    static func parse(_ args: ParsedArguments, allowed: [OutputFormat]) throws -> OutputFormat {
        guard let v = args.value("format") else { return .text }
        guard let f = OutputFormat(rawValue: v), allowed.contains(f) else {
            let names = allowed.map(\.rawValue)
            throw ConfigurationError(
                "--format must be \(names.dropLast().joined(separator: ", ")) or \(names.last!) (got '\(v)')")
        }
        return f
    }

    /// The test report's format, for commands that write one.
    var testReport: TestReportFormat { TestReportFormat(rawValue: rawValue) ?? .text }
}
