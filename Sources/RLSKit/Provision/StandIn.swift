import Postgres

/// The Supabase stand-in (`sql/compat`): roles, `auth`, `storage` and `extensions` as user
/// schemas expect them. Installed only where the real thing is absent, never over it.
public enum StandIn {
    public enum Part: String, Sendable {
        case auth, storage
    }

    public enum State: Sendable, Equatable {
        /// Not there: the stand-in will create it.
        case absent
        /// Our own stand-in, from an earlier run.
        case standIn
        /// A real Supabase schema (or anything else that is not ours): left untouched.
        case real
    }

    public struct Detection: Sendable, Equatable {
        public var auth: State
        public var storage: State
        /// Both schemas are the real thing: install nothing.
        public var isSupabase: Bool { auth == .real && storage == .real }
    }

    public struct Report: Sendable {
        public var detection: Detection
        /// Files run this time (already-installed, unchanged files are skipped).
        public var installed: [String]
        public var lines: [String]
    }

    static let marker = "rlskit stand-in"

    public static func detect(_ conn: PostgresConnection) throws -> Detection {
        let row = try conn.query(
            """
            select to_regclass('auth.users') is not null as auth_users,
                   coalesce(obj_description(to_regnamespace('auth'), 'pg_namespace'), '') = $1 as auth_ours,
                   to_regclass('storage.objects') is not null as storage_objects,
                   coalesce(obj_description(to_regnamespace('storage'), 'pg_namespace'), '') = $1 as storage_ours
            """, [marker]
        ).rows[0]
        func state(_ exists: String, _ ours: String) throws -> State {
            if try row.decode(ours) as Bool { return .standIn }
            return try row.decode(exists) as Bool ? .real : .absent
        }
        return Detection(
            auth: try state("auth_users", "auth_ours"), storage: try state("storage_objects", "storage_ours"))
    }

    /// Installs what is missing, each file in its own transaction with its ledger row.
    static func install(_ conn: PostgresConnection, files: [SQLFile] = BuiltInSQL.files(in: "compat")) throws -> Report
    {
        let found = try detect(conn)
        var report = Report(detection: found, installed: [], lines: [])
        if found.isSupabase {
            report.lines.append("Supabase schemas found (auth.users, storage.objects): stand-in not installed")
            return report
        }
        for part in [(Part.auth, found.auth), (Part.storage, found.storage)] where part.1 == .real {
            report.lines.append("\(part.0.rawValue) schema exists and is not the stand-in: left untouched")
        }
        let done =
            try Ledger.exists(conn)
            ? Dictionary(
                uniqueKeysWithValues: try conn.query("select file, checksum from rlskit.stand_in").rows.map {
                    (try $0.decode("file") as String, try $0.decode("checksum") as String)
                }) : [:]
        for file in files {
            let part: State? =
                file.name.contains("auth") ? found.auth : file.name.contains("storage") ? found.storage : nil
            if part == .real { continue }
            // Unchanged and still there: nothing to do (this keeps a no-op apply fast).
            if done[file.name] == file.checksum, part != .absent { continue }
            do {
                try conn.transaction { c in
                    try Ledger.ensure(c)
                    _ = try c.runScript(file.contents)
                    try c.query(
                        """
                        insert into rlskit.stand_in (file, checksum) values ($1, $2)
                        on conflict (file) do update set checksum = excluded.checksum, applied_at = now()
                        """, [file.name, file.checksum])
                }
            } catch let e as ScriptError {
                throw MigrationError(file: file, script: e, sent: SQLScanner.statements(in: file.contents))
            }
            report.installed.append(file.name)
        }
        if !report.installed.isEmpty {
            report.lines.append("stand-in installed: " + report.installed.joined(separator: ", "))
        }
        return report
    }
}
