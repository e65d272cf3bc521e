import Postgres
import RLSKit
import TestSupport
import XCTest

final class SnapshotTests: XCTestCase {
    /// The same schema created in two different orders gives byte-identical lock files.
    func testSameSchemaSameBytesWhateverTheOrder() throws {
        let steps = [
            "create table public.a (id int primary key, owner uuid)",
            "create table public.b (id int primary key, owner uuid)",
            "alter table public.a enable row level security",
            "alter table public.b enable row level security",
            "create policy \"b read\" on public.b for select to authenticated, anon using (true)",
            "create policy \"a own\" on public.a for all to authenticated using ((select auth.uid()) = owner)",
            "create policy \"a read\" on public.a as restrictive for select to anon, authenticated using (id > 0)",
            "grant select on public.a to anon",
            "grant insert, select on public.a to authenticated",
            "grant update on public.b to authenticated",
            "create function public.f(x int) returns int language sql security definer set search_path = '' as $$ select x $$",
            "create function public.g() returns int language sql security definer as $$ select 1 $$",
            "revoke execute on function public.g() from public",
            "grant execute on function public.g() to authenticated",
            "insert into storage.buckets (id, name, public, allowed_mime_types) values ('pics', 'pics', true, '{image/png,image/jpeg}')",
            "insert into storage.buckets (id, name) values ('docs', 'docs')",
        ]
        // Dependencies: a policy or grant after its table, revoke/grant after its function.
        let reordered = [1, 0, 10, 11, 13, 12, 3, 2, 9, 8, 7, 6, 4, 5, 15, 14].map { steps[$0] }
        var locks: [String] = []
        for order in [steps, reordered] {
            let db = try StandIn.makeDatabase(prefix: "snap")
            defer { TestServer.drop(db.name) }
            for s in order { try db.conn.query(s) }
            locks.append(LockFile.render(try SurfaceReader.read(db.conn)))
        }
        XCTAssertEqual(locks[0], locks[1])
        XCTAssertTrue(locks[0].contains("roles: anon, authenticated"))
        // Round trip: parse and render again.
        let parsed = try LockFile.parse(locks[0], file: "x.lock")
        XCTAssertEqual(LockFile.render(parsed), locks[0])
    }

    func testMalformedLockFileNamesTheLine() {
        XCTAssertThrowsError(try LockFile.parse("hello\n", file: "p.lock")) {
            XCTAssertTrue("\($0)".hasPrefix("p.lock:1:"), "\($0)")
        }
        XCTAssertThrowsError(
            try LockFile.parse("\(LockFile.formatLine)\ntable public.a\n  colour: red\n", file: "p.lock")
        ) {
            XCTAssertTrue("\($0)".hasPrefix("p.lock:3:"), "\($0)")
        }
    }

    func testDiffClassification() throws {
        let db = try StandIn.makeDatabase(prefix: "diff")
        defer { TestServer.drop(db.name) }
        try StandIn.installMigrations(db.conn)
        let conn = db.conn
        let base = try SurfaceReader.read(conn)
        XCTAssertEqual(SurfaceDiff.diff(base, base), [])

        func kinds(_ sql: String) throws -> [SurfaceChange.Kind] {
            try conn.query("BEGIN")
            defer { _ = try? conn.query("ROLLBACK") }
            _ = try conn.runScript(sql)
            let changes = SurfaceDiff.diff(base, try SurfaceReader.read(conn))
            return changes.map(\.kind)
        }
        XCTAssertEqual(
            try kinds("create policy \"all posts\" on public.posts for update to authenticated using (true)"),
            [.widening])
        XCTAssertEqual(try kinds("drop policy \"Users delete their own posts\" on public.posts"), [.narrowing])
        XCTAssertEqual(
            try kinds(
                "create policy \"not banned\" on public.posts as restrictive for select using (caption is not null)"),
            [.narrowing])
        XCTAssertEqual(try kinds("alter table public.posts disable row level security"), [.widening])
        XCTAssertEqual(try kinds("alter table public.posts force row level security"), [.narrowing])
        XCTAssertEqual(try kinds("grant delete on public.profiles to anon"), [.widening])
        XCTAssertEqual(try kinds("revoke insert on public.profiles from authenticated"), [.narrowing])
        // USING gains a conjunct: provably narrower.
        XCTAssertEqual(
            try kinds(
                "alter policy \"Users delete their own posts\" on public.posts using ((select auth.uid()) = author_id and caption is null)"
            ), [.narrowing])
        // USING replaced by something else: widening (not provably narrower).
        XCTAssertEqual(
            try kinds("alter policy \"Users delete their own posts\" on public.posts using (caption is null)"),
            [.widening])
        // A commuted comparison is not recognised as the same: conservatively widening.
        XCTAssertEqual(
            try kinds(
                "alter policy \"Users delete their own posts\" on public.posts using (author_id = (select auth.uid()))"),
            [.widening])
        XCTAssertEqual(
            try kinds("alter policy \"Posts are viewable by everyone\" on public.posts to anon"), [.narrowing])
        XCTAssertEqual(
            try kinds("alter policy \"Posts are viewable by everyone\" on public.posts to public"),
            [.widening, .narrowing])
        XCTAssertEqual(try kinds("grant execute on function private.handle_new_user() to anon"), [.widening])
        XCTAssertEqual(try kinds("update storage.buckets set public = false where id = 'avatars'"), [.narrowing])
        XCTAssertEqual(
            try kinds("update storage.buckets set file_size_limit = 1000000 where id = 'avatars'"), [.narrowing])
        XCTAssertEqual(
            try kinds("insert into storage.buckets (id, name, public) values ('open', 'open', true)"), [.widening])
        XCTAssertEqual(try kinds("create table public.notes (id int)"), [.widening, .neutral])
    }

    func testDroppingAnEqualWithCheckIsNeutral() throws {
        let db = try StandIn.makeDatabase(prefix: "diffwc")
        defer { TestServer.drop(db.name) }
        try db.conn.query("create table public.t (id int, owner uuid)")
        try db.conn.query(
            "create policy u on public.t for update using (owner = (select auth.uid())) with check (owner = (select auth.uid()))"
        )
        let before = try SurfaceReader.read(db.conn)
        try db.conn.query("drop policy u on public.t")
        try db.conn.query("create policy u on public.t for update using (owner = (select auth.uid()))")
        let changes = SurfaceDiff.diff(before, try SurfaceReader.read(db.conn))
        XCTAssertEqual(changes.map(\.kind), [.neutral], "\(changes.map(\.line))")
    }
}
