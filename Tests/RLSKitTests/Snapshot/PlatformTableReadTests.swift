import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// audit, snapshot and init read storage.buckets, which a project may replace. Whatever it is
/// replaced with, none of them runs the project's code (the log stays empty, nothing raises);
/// each says in one line that it did not read it, and reports the rest.
final class PlatformTableReadTests: XCTestCase {
    static let log = "create table public.bucket_log (at timestamptz default now());"

    /// A view over a function that writes to the log (as the auditor: nothing stops a write
    /// outside a read-only transaction).
    static let loggingView =
        log + """
            create function public.buckets_logged() returns setof storage.buckets language plpgsql as $$
            begin insert into public.bucket_log default values; return query select * from storage.buckets_data; end $$;
            alter table storage.buckets rename to buckets_data;
            create view storage.buckets as select * from public.buckets_logged();
            """

    /// A view over a function that raises: reading it would fail the whole audit.
    static let raisingView = """
        create function public.buckets_raise() returns setof storage.buckets language plpgsql as $$
        begin raise exception 'the buckets view ran'; end $$;
        alter table storage.buckets rename to buckets_data;
        create view storage.buckets as select * from public.buckets_raise();
        """

    /// The table itself, with a policy calling the project's function, read by a role it applies to.
    static let reader = "rlskit_plain_reader_\(getpid())"
    static let policy =
        log + """
            create function public.bucket_policy() returns boolean language plpgsql as $$
            begin raise exception 'the bucket policy ran'; end $$;
            alter table storage.buckets enable row level security;
            create policy spy on storage.buckets for select using (public.bucket_policy());
            create role \(reader) nologin;
            grant usage on schema storage, auth to \(reader);
            grant select on storage.buckets to \(reader);
            grant \(reader) to current_user;
            """

    /// A bucket, and a table for the draft to draft.
    static let bucket = """
        insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
        create table public.notes (id bigint primary key, user_id uuid references auth.users (id));
        alter table public.notes enable row level security;
        """

    func database(_ sql: String) throws -> (name: String, url: ConnectionString, conn: PostgresConnection) {
        let db = try StandIn.makeDatabase(prefix: "plain")
        _ = try db.conn.runScript(Self.bucket + "\n" + sql)
        return (db.name, db.connectionString, db.conn)
    }

    /// Audit, snapshot and draft of `url`, with what each says it did not read.
    func readAll(_ url: ConnectionString) throws -> (
        audit: AuditResult, surface: SecuritySurface, draft: AccessDraft.Draft
    ) {
        let audit = try Auditor.run(options: AuditOptions(exposedSchemas: ["public"]), on: url)
        let conn = try PostgresConnection(url)
        defer { conn.close() }
        let surface = try SurfaceReader.read(conn, exposedSchemas: ["public"])
        let draft = try AccessDraft.run(options: .init(exposedSchemas: ["public"]), on: url)
        return (audit, surface, draft)
    }

    func assertNotRead(_ r: (audit: AuditResult, surface: SecuritySurface, draft: AccessDraft.Draft), _ reason: String)
    {
        XCTAssertEqual(r.audit.failedLints, [:])
        let finding = r.audit.findings.first { $0.lint == "platform_table_not_read" }
        XCTAssertEqual(finding?.object.display, "table storage.buckets")
        XCTAssertTrue(
            finding?.detail.hasPrefix("storage.buckets not read: \(reason)") == true, finding?.detail ?? "none")
        XCTAssertEqual(r.surface.buckets.map(\.id), [])
        XCTAssertEqual(r.surface.unread.count, 1)
        XCTAssertTrue(r.surface.unread.first?.hasPrefix("storage.buckets not read: \(reason)") == true)
        XCTAssertTrue(LockFile.render(r.surface).contains("\n# unread: storage.buckets not read: \(reason)"))
        XCTAssertEqual(r.draft.unread, r.surface.unread)
        XCTAssertTrue(r.draft.text.contains("\n# storage.buckets not read: \(reason)"), r.draft.text)
        XCTAssertFalse(r.draft.text.contains("\nbucket "))
        XCTAssertEqual(r.draft.tables, 1, "the rest is drafted")
    }

    func logged(_ conn: PostgresConnection) throws -> Int {
        try conn.query("select count(*)::int from public.bucket_log").rows[0].decode(0)
    }

    func testAViewOverALoggingFunctionIsNotRead() throws {
        let db = try database(Self.loggingView)
        defer { TestServer.drop(db.name) }
        assertNotRead(try readAll(db.url), "it is a view")
        XCTAssertEqual(try logged(db.conn), 0)
    }

    func testAViewOverARaisingFunctionIsNotRead() throws {
        let db = try database(Self.raisingView)
        defer { TestServer.drop(db.name) }
        assertNotRead(try readAll(db.url), "it is a view")
    }

    func testAPolicyThatAppliesToTheReaderIsNotRun() throws {
        let db = try database(Self.policy)
        defer {
            TestServer.drop(db.name)
            _ = try? TestServer.connect().query("drop role if exists \(Self.reader)")
        }
        var opts = try db.url.options()
        opts["options"] = "-c role=\(Self.reader)"
        let asReader = ConnectionString(
            opts.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)'" }.joined(separator: " "))
        assertNotRead(try readAll(asReader), "row level security applies to \(Self.reader) there")
        XCTAssertEqual(try logged(db.conn), 0)
    }

    /// The platform's plain table is read as before, in the audit's snapshot and the draft.
    func testThePlainTableIsRead() throws {
        let db = try database("")
        defer { TestServer.drop(db.name) }
        let r = try readAll(db.url)
        XCTAssertEqual(r.audit.failedLints, [:])
        XCTAssertFalse(r.audit.findings.contains { $0.lint == "platform_table_not_read" })
        XCTAssertEqual(r.surface.buckets.map(\.id), ["photos"])
        XCTAssertEqual(r.surface.unread, [])
        XCTAssertTrue(r.draft.text.contains("\nbucket photos"), r.draft.text)
        // Diffing against a surface that could not read its buckets compares none of them.
        var unread = r.surface
        unread.buckets = []
        unread.unread = ["storage.buckets not read: it is a view"]
        let changes = SurfaceDiff.diff(r.surface, unread)
        XCTAssertEqual(changes.map(\.line), ["WIDENING  buckets: not compared: storage.buckets not read: it is a view"])
        XCTAssertEqual(try LockFile.parse(LockFile.render(unread), file: "p.lock"), unread)
    }
}
