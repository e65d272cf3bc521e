import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `rlskit storage drain`: send queued avatar deletions to the Storage API.
enum StorageCommand {
    static let spec = CommandSpec(
        name: "storage",
        summary: "send queued storage deletions to the Storage API (storage drain)",
        positionals: "drain",
        maxPositionals: 1,
        details: """
            Without the http or pg_net extension, the avatar cleanup records each deletion in
            private.storage_deletion_outbox. 'rlskit storage drain' sends them to the Storage API
            (DELETE /storage/v1/object/<bucket>/<name> with the service key) and marks them sent;
            failures stay queued for the next drain. Each request gives up after 10 s and
            redirects are not followed. Names with an empty, '.' or '..' segment, a backslash,
            a control character or a percent-encoded or look-alike separator are never sent:
            they stay queued with the reason. URL and key: --storage-url and
            --service-key-env, else the ones stored by 'rlskit apply'. Exit 1 when any failed
            or was refused.
            """,
        options: [
            DatabaseTarget.existingOption,
            .option(
                "storage-url", "URL", "Storage API base URL, e.g. https://<ref>.supabase.co (default: the stored one)."),
            .option(
                "service-key-env", "NAME",
                "Environment variable holding the service role key (default: the stored key)."),
            .option("limit", "N", "Send at most N deletions (default 1000)."),
        ])

    static func run(_ args: ParsedArguments, _ term: Terminal) throws -> ExitCode {
        guard args.positionals == ["drain"] else {
            throw UsageError(
                message: args.positionals.isEmpty
                    ? "say what to do: rlskit storage drain"
                    : "unknown storage action '\(args.positionals[0])': use drain", usage: spec.usage)
        }
        var limit = 1000
        if let l = args.value("limit") {
            guard let n = Int(l), n >= 1 else {
                throw ConfigurationError("--limit must be a positive number (got '\(l)')")
            }
            limit = n
        }
        let given = try ApplyCommand.storageSettings(args)
        try DatabaseTarget.requireGiven(args, command: "storage drain")
        let target = try DatabaseTarget.resolve(args) { _ in }
        let conn = try target.connect()
        let stored = given == nil ? try StorageDrain.storedSettings(conn) : nil
        guard let settings = given.map({ ($0.url, $0.key) }) ?? stored else {
            throw ConfigurationError(
                "no Storage API URL and key: pass --storage-url and --service-key-env, or store them with 'rlskit apply --storage-url … --service-key-env …'"
            )
        }
        Output.hide(settings.1)
        conn.close()
        var options = StorageDrain.Options(url: settings.0, key: settings.1)
        options.limit = limit
        let r = try StorageDrain.run(options: options, on: target.connection) { say("  " + $0) }
        let refused =
            r.refused.isEmpty
            ? "" : ", \(r.refused.count) refused (unsafe object names, left queued with the reason in last_error)"
        say("\(r.deleted.count) deleted, \(r.failed.count) failed" + refused)
        return r.failed.isEmpty && r.refused.isEmpty ? .success : .checksFailed
    }
}
