import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit init`: drafts a first access file from the catalog, every intent left as a question.
enum InitCommand {
    static let defaultPath = "supabase/tests/access.rls"

    static let spec = CommandSpec(
        name: "init",
        summary: "draft a first access file from the database's RLS tables and buckets",
        details: """
            Reads the RLS tables of the exposed schemas and the storage buckets, and writes an
            access file with one block each: owner and group columns found through foreign keys
            (to auth.users, and to the tables a membership table points at), membership tables
            as 'members' blocks, and each table's policies quoted as comments. Every intent is a
            '?' for you to answer: today's policies are never taken as expectations, and the file
            does not run until each '?' is answered. With no database given, a throwaway server
            gets the project's migrations first, as 'rlskit test' does.
            """,
        options: [
            DatabaseTarget.option,
            .option(
                "output", "FILE", "Where to write the access file (default: \(defaultPath); - for standard output)."),
            .flag("force", "Replace the file if it exists."),
            ProjectOptions.exposedSchemas,
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        let path = args.value("output") ?? defaultPath
        let toStdout = path == "-"
        var isDir: ObjCBool = false
        if !toStdout && FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && !isDir.boolValue
            && !args.flag("force")
        {
            throw ConfigurationError("\(path) already exists: pass --force to replace it, or --output another file")
        }
        // Fail before the work; the default's folder is made when the draft is written.
        if !toStdout && (args.value("output") != nil || isDir.boolValue) { _ = try OutputTarget(path) }
        let project = try ProjectOptions(args).resolve(migrations: .projectSource())
        let target = try DatabaseTarget.resolve(args) { printNote(term.dim($0)) }
        defer { target.stop() }
        try target.provisionIfThrowaway(project) { printNote(term.dim($0)) }
        let exposure = try project.exposure(on: try target.connect())
        let draft = try AccessDraft.run(options: .init(exposedSchemas: exposure.names), on: target.connection)
        for u in draft.unread { printNote("note: \(u) (the draft has no bucket blocks; write them by hand)") }
        guard draft.tables + draft.memberships + draft.buckets > 0 else {
            throw ConfigurationError(
                "no RLS table in the exposed schemas (\(draft.schemas.map { SQL.display($0) }.joined(separator: ", "))) and no bucket: nothing to draft; apply the migrations or name the schemas with --exposed-schemas"
            )
        }
        if !toStdout && args.value("output") == nil {
            try? FileManager.default.createDirectory(
                atPath: FilePath.parent(path), withIntermediateDirectories: true)
        }
        try OutputTarget(toStdout ? nil : path).write(draft.text, as: .text)  // on stdout: for a person
        let counts = [
            (draft.tables, "table"), (draft.memberships, "membership table"), (draft.buckets, "bucket"),
        ].map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
        printNote(
            "wrote \(toStdout ? "the access file to standard output" : path): \(counts), \(draft.questions) questions to answer"
        )
        printNote("next: replace each '?' with who may do it (the comments list the choices), then run: rlskit test")
        return .success
    }
}
