@_spi(CLI) import RLSKit

/// The last line of `check` and what it says about tables nobody tested: a run that
/// checked nothing never reads "passed".
enum CheckVerdict {
    static func line(_ report: ProjectCheck.Report, term: Terminal) -> String {
        let what = report.migrations.plan.isEmpty ? "nothing was applied" : "nothing was tested"
        if !report.checkedNothing { return report.passed ? term.green("passed") : term.red("failed") }
        if report.passed { return term.yellow("nothing checked") + " (\(what); allowed by --allow-empty)" }
        // Another phase failed (the audit, say): the empty run itself was allowed.
        let emptyPhase = report.migrations.plan.isEmpty ? "apply" : "test"
        if report.phases.contains(where: { $0.name == emptyPhase && $0.ok }) {
            let failed = report.phases.filter { !$0.ok }.map(\.name).joined(separator: ", ")
            return term.red("failed") + ": \(failed) (\(what); allowed by --allow-empty)"
        }
        let fix = report.migrations.plan.isEmpty ? "give --dir DIR" : "add tests"
        return term.red("failed") + ": \(what) (\(fix), or pass --allow-empty to accept an empty run)"
    }

    /// Every RLS table left untested when there were no tests, and how to start.
    static func untested(_ report: ProjectCheck.Report) -> [String] {
        guard !report.untestedTables.isEmpty else { return [] }
        let start =
            Commands.all.contains { $0.spec.name == "init" }
            ? "start with: rlskit init (writes an access file declaring who may do what)"
            : "start with an access file in sql/tests declaring who may do what (docs/testing.md)"
        let tables = report.untestedTables.map(TextEscape.line).joined(separator: ", ")
        return ["untested (row level security on, no tests): " + tables, start]
    }
}
