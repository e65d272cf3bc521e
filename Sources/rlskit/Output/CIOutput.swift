import Foundation
@_spi(CLI) import RLSKit

/// The CI summary and annotations of `check`, `test` and `audit`: Markdown appended to
/// `GITHUB_STEP_SUMMARY` and written to `--summary FILE`; GitHub annotations when
/// `GITHUB_ACTIONS=true`.
struct CIOutput {
    static let option = OptionSpec.option(
        "summary", "FILE", "Write a Markdown summary to FILE (also appended to GITHUB_STEP_SUMMARY when set).")

    let summary: OutputTarget
    let stepSummary: String?
    let annotate: Bool

    init(_ args: ParsedArguments) throws {
        summary = try OutputTarget(args.value("summary"), option: "summary")
        let env = ProcessInfo.processInfo.environment
        stepSummary = env["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }
        annotate = env["GITHUB_ACTIONS"] == "true"
    }

    /// Writes the summary where asked; annotations go to `stream` (stdout unless a machine format holds it).
    func emit(markdown: @autoclosure () -> String, annotations: @autoclosure () -> String, toStderr: Bool) throws {
        if annotate {
            let text = annotations()
            if toStderr { printErrRaw(text, as: .annotations) } else { writeOut(text, as: .annotations) }
        }
        guard summary.isFile || stepSummary != nil else { return }
        let text = markdown()
        if summary.isFile { try summary.write(text) }
        if let stepSummary { try Self.append(text + "\n", to: stepSummary) }
    }

    /// One database of several: its summary to its own file, and appended to the step summary.
    func emit(markdown: @autoclosure () -> String, to file: OutputTarget?) throws {
        guard file != nil || stepSummary != nil else { return }
        let text = markdown()
        if let file { try file.write(text) }
        if let stepSummary { try Self.append(text + "\n", to: stepSummary) }
    }

    /// The step summary collects every step's text: append, never replace.
    static func append(_ text: String, to path: String) throws {
        try OutputTarget.systemWrite(text, to: path, flags: O_APPEND, name: "GITHUB_STEP_SUMMARY \(path)")
    }
}
