import Postgres

/// A statement of a SQL file failed: where (file:line:column), and the server's error.
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var error: PostgresError
    /// The server's major version, for naming packages to install.
    public var serverMajor: Int?
    /// It ran as a throwaway server's `postgres`, which is not a superuser, as on hosted Supabase.
    public var asPlatformPostgres = false
    /// The failing statement changes a table of Supabase's services (`auth.…`, `storage.…`),
    /// which their own roles own: `postgres` may not alter it on the platform either.
    var servicesTable: String?
    /// Set where `apply` stopped on it: what was applied, where it stopped, what was not applied.
    public var summary: String?

    /// `position` of the error counts from the start of `statement` when one is given, else
    /// from the start of the file (the whole file was sent at once).
    init(file: SQLFile, error: PostgresError, statement: SQLStatement?) {
        self.error = error
        servicesTable = Self.servicesTable(error, statement)
        if let pos = error.position {
            let lc = SQLScanner.lineAndColumn(ofPosition: pos + (statement?.offset ?? 0), in: file.contents)
            location = SourceLocation(file: file.path, line: lc.line, column: lc.column)
        } else if let statement, let line = Self.doBlockLine(error, statement) {
            location = SourceLocation(file: file.path, line: line, column: 1)
        } else if let statement {
            location = SourceLocation(file: file.path, line: statement.line, column: statement.column)
        } else {
            location = SourceLocation(file: file.path, line: 1, column: 1)
        }
    }

    /// An error inside a `DO` block has no position, but its context names the line of the
    /// block's body (`PL/pgSQL function inline_code_block line 4 at PERFORM`): the file's line.
    static func doBlockLine(_ error: PostgresError, _ statement: SQLStatement) -> Int? {
        guard let context = error.context,
            let m = context.range(of: #"PL/pgSQL function inline_code_block line [0-9]+"#, options: .regularExpression),
            let n = Int(context[m].split(separator: " ").last ?? ""),
            let body = statement.text.range(of: #"\$[A-Za-z_]*\$"#, options: .regularExpression)
        else { return nil }
        // Body line 1 is the line of the opening quote.
        let before = statement.text[..<body.lowerBound].filter { $0 == "\n" || $0 == "\r\n" }.count
        return statement.line + before + n - 1
    }

    /// A failure of a whole-file script: the failing statement is the first without a result.
    init(file: SQLFile, script: ScriptError, sent: [SQLStatement]) {
        let failing =
            script.error.position == nil && script.completed.count < sent.count ? sent[script.completed.count] : nil
        self.init(file: file, error: script.error, statement: script.error.position == nil ? failing : nil)
    }

    public var description: String {
        let advice = MissingExtension.advice(error, major: serverMajor)
        let detail = PlatformRefusal.showsDetail(error) ? error.detail.map { ": " + $0 } ?? "" : ""
        var text = "\(location): \(advice ?? error.message + detail) (SQLSTATE \(error.sqlState ?? "?"))"
        let supautilsOnly = asPlatformPostgres && Self.allowedBySupautils(error)
        if advice != nil || supautilsOnly {
            // The advice replaces the server's hint.
        } else if error.sqlState == "25001" {
            text += "; add '-- rlskit:no-transaction' as the file's first line to run it outside a transaction"
        } else if let hint = error.hint {
            text += "; hint: \(hint)"
        }
        if supautilsOnly {
            text +=
                "; allowed on Supabase through supautils; the throwaway server cannot allow it: it needs a superuser"
                + " here. Check this project against a Supabase database (--database-url), or keep the statement"
                + " out of the migrations rlskit applies"
        } else if asPlatformPostgres, error.sqlState == "42501", PlatformRefusal.verdict(error) != .sandbox {
            text +=
                PlatformRefusal.verdict(error) == .refused
                ? "; it ran as postgres, which is not a superuser here, as on hosted Supabase: it would fail there too"
                : "; it ran as postgres, which is not a superuser here, as on hosted Supabase; rlskit's record of the"
                    + " platform does not say whether Supabase allows it: check this project against a Supabase"
                    + " database (--database-url)"
            if let table = servicesTable {
                let service =
                    table.hasPrefix("auth.")
                    ? "the Auth server's (supabase_auth_admin)" : "the Storage API's (supabase_storage_admin)"
                text +=
                    "; \(table) is \(service), not postgres's: a `supabase db diff` migration copies the service's"
                    + " own changes, so remove those statements from the migration"
            }
        }
        return text
    }

    /// `must be owner of table X` on a statement that names `auth.X` or `storage.X`: that table.
    static func servicesTable(_ error: PostgresError, _ statement: SQLStatement?) -> String? {
        guard error.sqlState == "42501", error.message.hasPrefix("must be owner of "), let text = statement?.text,
            let name = error.message.split(separator: " ").last
        else { return nil }
        let lower = text.lowercased()
        for schema in ["auth", "storage"] {
            for form in ["\(schema).\(name)", "\"\(schema)\".\"\(name)\"", "\(schema).\"\(name)\""]
            where lower.contains(form.lowercased()) {
                return "\(schema).\(name)"
            }
        }
        return nil
    }

    /// What supautils lets the platform's postgres do that plain PostgreSQL keeps for superusers
    /// (event triggers, publications for all tables): the server's messages for them.
    static func allowedBySupautils(_ error: PostgresError) -> Bool {
        guard error.sqlState == "42501" else { return false }
        return error.message.hasPrefix("permission denied to create event trigger")
            || error.message.hasPrefix("must be superuser to create FOR ALL TABLES publication")
    }
}
