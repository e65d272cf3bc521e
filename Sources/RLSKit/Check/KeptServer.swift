import Foundation
import Postgres

/// A throwaway server kept between runs (`check --watch`): before each run its `postgres`
/// database is dropped and cloned (`create database … template …`) from a template database
/// holding the stand-in and the project's migrations up to the last unchanged file, so a run
/// applies only what changed. See docs/check.md#template-databases.
///
/// For a later `rlskit mutate`: `prepare(project, saveAll: true)` once, then per mutant
/// `reset(toAllMigrations:)` (one clone, tens of milliseconds), run the changed policy as the
/// admin, then `ProjectCheck.run` on a `Database` without `kept` (the ledger says every
/// migration is applied, so only the seeds, the tests and the audit run on the clone).
public final class KeptServer: @unchecked Sendable {
    /// Bumped when what a template holds changes.
    static let format = "rlskit templates 1"
    /// Templates kept at most; the least recently used go first.
    static let capacity = 12
    static let prefix = "rlskit_tpl_"
    static let empty = prefix + "empty"
    /// The stand-in's and the platform's SQL, hashed once.
    static let builtIn = SHA256.hex(
        SHA256.digest(
            Array(
                ([format]
                    + (BuiltInSQL.files(in: "compat") + BuiltInSQL.files(in: "platform")).map { $0.name + $0.checksum })
                    .joined(separator: "\u{0}").utf8)))

    /// What `prepare` did.
    public struct Prepared: Sendable {
        /// Migration files the clone held (0: only the stand-in, or nothing).
        public var cloned: Int
        /// Migration files in `postgres` when `prepare` returned (the clone's and those applied
        /// on the way to the templates it saved).
        public var applied: Int
        /// Migration files in the project.
        public var files: Int
        /// Where the template chain stops: the first file that may change roles or other
        /// cluster-wide state (nil: none does); it and the files after it are never cached.
        public var clusterWide: (file: String, line: Int)?
        public var milliseconds: Int
        /// `postgres` was the clone `prepareNext` made while the watch waited.
        public var madeWhileWaiting = false
    }

    /// A server whose `postgres` cannot be dropped and cloned: a preloaded pg_cron keeps a
    /// session in it (its launcher). Each run then needs a server of its own.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The kept server changed outside its databases (roles, role settings, a database's
    /// settings) in a way `prepare` cannot put back: start a new server.
    public struct Spoiled: Error, CustomStringConvertible {
        public var description: String
    }

    let admin: ConnectionString
    let project: ConnectionString?
    let maintenance: PostgresConnection
    /// `server_version_num`: a template is only ever used on the server that made it, but the
    /// name says it anyway.
    let version: String
    /// `postgres` as the fresh server had it: owner, privileges, connection limit, settings, comment.
    let database: (owner: String, acl: String?, limit: Int, settings: [(role: Int64, config: String)], comment: String?)
    /// The cluster-wide state after the stand-in went in; every run starts from it.
    var baseline: (fingerprint: String, roles: Set<String>)?
    var used: [String: Int] = [:]
    var clock = 0
    var lastChain: [String] = []
    var fresh = true
    /// The prefix the next run most likely starts from: up to the file this run found changed
    /// (on the first run, all but the newest), the file being edited.
    var likely: Int?
    /// The template `prepareNext` cloned into `postgres` while nothing ran; nil once anything may have.
    var spare: String?
    static let tracing = ProcessInfo.processInfo.environment["RLSKIT_TRACE"] != nil
    var traceClock = Date()

    /// With RLSKIT_TRACE: where a prepare's time goes, on stderr.
    func trace(_ step: String) {
        guard Self.tracing else { return }
        FileHandle.standardError.write(
            Data("rlskit: templates \(step): \(Int(-traceClock.timeIntervalSinceNow * 1000)) ms\n".utf8))
        traceClock = Date()
    }

    /// `admin` is the server's superuser on `postgres`, `project` its non-superuser `postgres`
    /// (nil: the project's SQL runs as the admin). Call on a server nothing ran on yet.
    public init(admin: ConnectionString, project: ConnectionString?) throws {
        self.admin = admin
        self.project = project
        maintenance = try PostgresConnection(ConnectionString(admin.raw + " dbname=template1"))
        version = try maintenance.query("select current_setting('server_version_num') as v").rows[0].decode("v")
        let preloaded: String = try maintenance.query("select current_setting('shared_preload_libraries') as s").rows[0]
            .decode("s")
        if preloaded.contains("pg_cron") {
            maintenance.close()
            throw Unavailable(
                description:
                    "pg_cron keeps a session in the database postgres, so it cannot be cloned: each run starts a new server"
            )
        }
        let row = try maintenance.query(
            """
            select datdba::regrole::text as owner, datacl::text as acl, datconnlimit as n,
                   shobj_description(oid, 'pg_database') as comment
            from pg_database where datname = 'postgres'
            """
        ).rows[0]
        let settings = try maintenance.query(
            """
            select setrole::int8 as role, setconfig::text as config from pg_db_role_setting
            where setdatabase = (select oid from pg_database where datname = 'postgres')
            """
        ).rows.map { (role: try $0.decode("role") as Int64, config: try $0.decode("config") as String) }
        database = (
            try row.decode("owner"), try row.decode("acl"), try row.decode("n"), settings, try row.decode("comment")
        )
        try maintenance.query("drop database if exists \(SQL.ident(Self.empty)) with (force)")
        try create(Self.empty, from: "postgres", template: true)
    }

    deinit { maintenance.close() }

    /// Makes `postgres` hold the stand-in and a prefix of the project's migrations (no seeds,
    /// no buckets): cloned from the template with the longest unchanged prefix, the prefix up
    /// to the last file unchanged since the last run saved as a template on the way. The
    /// caller's `Migrator.run` applies the rest.
    /// `saveAll` also keeps the prefix of every file (what `reset(toAllMigrations:)` clones).
    public func prepare(_ project: Project, saveAll: Bool = false) throws -> Prepared {
        let started = Date()
        traceClock = started
        var options = try project.migrator(throwaway: true, projectConnection: self.project)
        (options.seeds, options.buckets) = ([], [])
        let files = try project.migrations.load()
        let chain = try self.chain(files, options: options)
        let wide = ClusterWideSQL.first(in: files)
        let cap = wide?.index ?? files.count
        // The prefix up to the last file unchanged since the last run; on the first run also
        // the next-to-last, the file most likely edited next.
        var saves: Set<Int> = [0]
        if lastChain.isEmpty {
            saves.formUnion([cap - 1, cap].filter { $0 >= 0 })
            likely = max(cap - 1, 0)
        } else {
            let d = chain.indices.first { $0 >= lastChain.count || lastChain[$0] != chain[$0] } ?? chain.count
            saves.insert(min(d - 1, cap))
            likely = max(min(d - 1, cap), 0)
        }
        if saveAll { saves.insert(cap) }
        lastChain = chain
        trace("chain of \(files.count) files")

        let existing = try kept()
        let best = (0...cap).last { existing.contains(chain[$0]) }
        let waited = spare != nil && spare == best.map { chain[$0] }
        if waited {
            trace("cloned prefix \(best ?? 0) while waiting")
        } else if !fresh || best != nil {
            try restart(from: best.map { chain[$0] } ?? Self.empty)
            trace("cloned \(best.map { "prefix \($0)" } ?? "nothing")")
        }
        (fresh, spare) = (false, nil)
        var at = best ?? -1
        for s in saves.sorted() where s > at {
            options.limit = s
            _ = try Migrator.run(project.migrations, options: options, on: admin)
            at = s
            if baseline == nil {
                baseline = (try fingerprint(), try roles())
            } else if try fingerprint() != baseline?.fingerprint {
                break  // something the lexer missed reached outside the database: cache no further
            }
            try save(chain[s])
            trace("applied and saved prefix \(s)")
        }
        return Prepared(
            cloned: best ?? 0, applied: max(at, 0), files: files.count,
            clusterWide: wide.map { (files[$0.index].path, $0.line) },
            milliseconds: Int(Date().timeIntervalSince(started) * 1000), madeWhileWaiting: waited)
    }

    /// While the watch waits for a save: `postgres` cloned already from the template the next
    /// run most likely starts from, so that run only has to find the same name. A failure here
    /// is left for that run's `prepare` to meet again.
    public func prepareNext() {
        guard let likely, likely < lastChain.count, let existing = try? kept(),
            let name = lastChain[...likely].last(where: existing.contains)
        else { return }
        traceClock = Date()
        do {
            try restart(from: name)
            spare = name
        } catch { spare = nil }
    }

    /// Clones the template holding every migration into `postgres` again (after `prepare`).
    public func reset(toAllMigrations project: Project) throws {
        spare = nil
        let options = try project.migrator(throwaway: true, projectConnection: self.project)
        let files = try project.migrations.load()
        let cap = ClusterWideSQL.first(in: files)?.index ?? files.count
        guard cap == files.count, let name = try chain(files, options: options).last else {
            throw Spoiled(description: "no template holds every migration: call prepare instead")
        }
        try restart(from: name)
    }

    /// One name per prefix: a hash chain over what the template was made from.
    func chain(_ files: [SQLFile], options: Migrator.Options) throws -> [String] {
        let vector = try VectorIndexOptions.serverHasStandIn(maintenance, files: files)
        let parts = [
            Self.builtIn, version, "\(vector)", "\(options.grants.map { "\($0)" } ?? "-")", "\(project != nil)",
        ]
        var key = SHA256.hex(SHA256.digest(Array(parts.joined(separator: "\u{0}").utf8)))
        var out = [Self.prefix + key.prefix(24)]
        for f in files {
            key = SHA256.hex(SHA256.digest(Array((key + "\u{0}" + f.name + "\u{0}" + f.checksum).utf8)))
            out.append(Self.prefix + key.prefix(24))
        }
        return out
    }

    /// Drops the last run's `postgres` and the roles it created, clones `template` into
    /// `postgres`; refuses a server whose other cluster-wide state the last run changed.
    func restart(from template: String) throws {
        try maintenance.query("drop database if exists postgres with (force)")
        trace("dropped postgres")
        if let baseline {
            for role in try roles().subtracting(baseline.roles).sorted() {
                do { try maintenance.query("drop role \(SQL.ident(role))") } catch {
                    throw Spoiled(description: "cannot drop role \(SQL.display(role)) the last run created: \(error)")
                }
            }
        }
        try clone(template)
        trace("create database from the template")
        if let baseline, try fingerprint() != baseline.fingerprint {
            throw Spoiled(
                description:
                    "the last run changed roles, role settings or database settings of the kept server: start a new one"
            )
        }
    }

    /// `postgres` made again from `template`, with the fresh database's owner, privileges and settings.
    func clone(_ template: String) throws {
        try maintenance.query("drop database if exists postgres with (force)")
        try maintenance.query(
            "create database postgres owner \(SQL.ident(database.owner)) template \(SQL.ident(template))")
        try maintenance.transaction { c in
            try c.query(
                "update pg_database set datacl = $1::aclitem[], datconnlimit = $2 where datname = 'postgres'",
                [database.acl, database.limit])
            for s in database.settings {
                try c.query(
                    """
                    insert into pg_db_role_setting (setdatabase, setrole, setconfig)
                    select oid, $1::oid, $2::text[] from pg_database where datname = 'postgres'
                    """, [s.role, s.config])
            }
            if let comment = database.comment {
                try c.query(
                    """
                    insert into pg_shdescription (objoid, classoid, description)
                    select oid, 'pg_database'::regclass, $1 from pg_database where datname = 'postgres'
                    """, [comment])
            }
        }
        clock += 1
        used[template] = clock
    }

    /// `postgres` as it is now, kept as `name` (no one may connect to a template).
    func save(_ name: String) throws {
        try create(name, from: "postgres", template: true)
        clock += 1
        used[name] = clock
        let old = used.filter { $0.key != Self.empty }.sorted { $0.value < $1.value }
        for (victim, _) in old.prefix(max(old.count - Self.capacity, 0)) {
            try maintenance.query("alter database \(SQL.ident(victim)) is_template false")
            try maintenance.query("drop database if exists \(SQL.ident(victim))")
            used[victim] = nil
        }
    }

    func create(_ name: String, from source: String, template: Bool) throws {
        try maintenance.query(
            "create database \(SQL.ident(name)) template \(SQL.ident(source))"
                + (template ? " is_template true allow_connections false" : ""))
    }

    /// The templates this server holds that it saved itself: a database the project made
    /// under a template's name (postgres may create databases) is never one, and it changes
    /// the fingerprint, so the next run starts a new server.
    func kept() throws -> Set<String> {
        Set(
            try maintenance.query(
                """
                select datname from pg_database
                 where datname = any($1) and datistemplate
                   and datdba = (select oid from pg_roles where rolname = current_user)
                """, [Array(used.keys)]
            ).rows.map { try $0.decode("datname") as String })
    }

    func roles() throws -> Set<String> {
        Set(try maintenance.query("select rolname from pg_roles").rows.map { try $0.decode("rolname") as String })
    }

    /// What a clone does not carry: roles, memberships, role and database settings, shared
    /// comments and labels, tablespaces, replication slots, origins and subscriptions, every
    /// database but the templates this server saved, and their owners, privileges and limits.
    func fingerprint() throws -> String {
        try maintenance.query(
            """
            select md5(coalesce(string_agg(x, e'\\n' order by x), '')) as f from (
              select concat_ws(' ', 'role', rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,
                rolreplication, rolbypassrls, rolconnlimit, rolvaliduntil, md5(coalesce(rolpassword, ''))) as x
              from pg_authid
              union all select concat_ws(' ', 'member', roleid::regrole, member::regrole, admin_option)
              from pg_auth_members
              union all select concat_ws(' ', 'setting', d.datname, r.rolname, s.setconfig::text)
              from pg_db_role_setting s left join pg_database d on d.oid = s.setdatabase
              left join pg_roles r on r.oid = s.setrole
              union all select concat_ws(' ', 'database', datname, datdba::regrole, datacl::text, datconnlimit,
                datallowconn, datistemplate)
              from pg_database where datname <> all($1)
              union all select concat_ws(' ', 'comment', classoid::regclass,
                coalesce((select datname from pg_database where oid = objoid)::text,
                         (select rolname from pg_roles where oid = objoid)::text, objoid::text), description)
              from pg_shdescription
              union all select concat_ws(' ', 'label', classoid::regclass, objoid, provider, label) from pg_shseclabel
              union all select concat_ws(' ', 'tablespace', spcname, spcowner::regrole, spcacl::text) from pg_tablespace
              union all select concat_ws(' ', 'slot', slot_name, slot_type, datoid) from pg_replication_slots
              union all select concat_ws(' ', 'origin', roname) from pg_replication_origin
              union all select concat_ws(' ', 'subscription', subdbid, subname) from pg_subscription
            ) q
            """, [Array(used.keys) + [Self.empty]]
        ).rows[0].decode("f")
    }
}
