import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// `rlskit test` calls the exposed SECURITY DEFINER functions with A's seeded row as anon, A
/// and B, and fails those that hand another user's rows over or change them.
final class FunctionProbeHarnessTests: XCTestCase {
    static let schema = """
        create table public.notes (
          id bigint generated always as identity primary key,
          user_id uuid not null references auth.users (id) on delete cascade,
          body text not null
        );
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        grant all on public.notes to service_role;
        create policy "own notes" on public.notes for all to authenticated
          using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
        -- Anyone's notes by owner id.
        create function public.notes_of(p_user_id uuid) returns setof public.notes language sql stable
          security definer set search_path = '' as $$ select * from public.notes n where n.user_id = p_user_id $$;
        -- Deletes any note by id.
        create function public.drop_note(note_id bigint) returns void language sql
          security definer set search_path = '' as $$ delete from public.notes n where n.id = note_id $$;
        -- The caller's own, by both.
        create function public.my_notes() returns setof public.notes language sql stable
          security definer set search_path = '' as $$ select * from public.notes n where n.user_id = auth.uid() $$;
        create function public.drop_my_note(note_id bigint) returns void language sql
          security definer set search_path = '' as $$
          delete from public.notes n where n.id = note_id and n.user_id = auth.uid() $$;
        """

    static let access = """
        table public.notes
          owner user_id
          read owner
          write owner

        """

    func run(_ access: String) throws -> TestReport {
        let db = try OurSchema.makeDatabase(extra: Self.schema)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "notes.rls")]
        let report = try Harness.run(input, on: db.connectionString)
        let conn = try PostgresConnection(db.connectionString)
        defer { conn.close() }
        XCTAssertEqual(try conn.query("select count(*) from public.notes").rows.first?.decode(0) as Int64?, 0)
        return report
    }

    func testCallsThatReachAnotherUsersRowsFail() throws {
        let report = try run(Self.access)
        let calls = report.outcomes.filter { $0.suite == FunctionProbeRequest.suite }
        let failed = Set(calls.filter(\.isFailure).map(\.name))
        XCTAssertEqual(
            failed,
            [
                "public.notes_of(uuid) called as anon", "public.notes_of(uuid) called as B",
                "public.drop_note(bigint) called as anon", "public.drop_note(bigint) called as B",
            ])
        let b = try XCTUnwrap(calls.first { $0.name == "public.drop_note(bigint) called as B" })
        XCTAssertEqual(
            b.message,
            "functions · call public.drop_note(bigint) · as B, with arguments from A's row: expected: no write (not declared, so callable by owner: only the owner of the rows it is given; declare 'function public.drop_note(bigint) callable-by WHO' if that is meant); got: wrote public.notes: 1 deleted"
        )
        // No line declares it: the outcome names none (not the file's first line).
        XCTAssertNil(b.location)
        // A deleting its own note, and the caller's own rows, are fine.
        for name in [
            "public.drop_note(bigint) called as A", "public.drop_my_note(bigint) called as B",
            "public.drop_my_note(bigint) called as A", "public.my_notes() called as B",
        ] {
            XCTAssertEqual(calls.first { $0.name == name }?.status, .passed, name)
        }
    }

    func testDeclaredCallersTurnCallsIntoExpectations() throws {
        let report = try run(
            Self.access + """
                function public.notes_of(uuid) callable-by anyone
                function public.drop_my_note(bigint) callable-by nobody

                """)
        let calls = report.outcomes.filter { $0.suite == FunctionProbeRequest.suite }
        XCTAssertEqual(
            Set(calls.filter(\.isFailure).map(\.name)),
            [
                "public.drop_note(bigint) called as anon", "public.drop_note(bigint) called as B",
                "public.drop_my_note(bigint) called as A",
            ])
        let a = try XCTUnwrap(calls.first { $0.name == "public.drop_my_note(bigint) called as A" })
        XCTAssertEqual(a.location?.line, 6)
        XCTAssertTrue(
            a.message?.hasSuffix("expected: no write (callable-by nobody); got: wrote public.notes: 1 deleted") == true,
            a.message ?? "")
    }

    func testFunctionsOnATableNoUserOwns() throws {
        let db = try OurSchema.makeDatabase(
            extra: Self.schema + """
                create table public.price_list (id bigint generated always as identity primary key, name text not null);
                alter table public.price_list enable row level security;
                grant select on public.price_list to anon, authenticated;
                grant all on public.price_list to service_role;
                create policy "prices are public" on public.price_list for select to anon, authenticated using (true);
                -- Deletes any price by id.
                create function public.drop_price(price_list_id bigint) returns void language sql
                  security definer set search_path = '' as $$ delete from public.price_list p where p.id = price_list_id $$;
                """)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse("table public.price_list\n  read anyone\n  write nobody\n", path: "prices.rls")
        ]
        let calls = try Harness.run(input, on: db.connectionString).outcomes.filter {
            $0.suite == FunctionProbeRequest.suite
        }
        XCTAssertEqual(
            Set(calls.filter(\.isFailure).map(\.name)),
            ["public.drop_price(bigint) called as anon", "public.drop_price(bigint) called as A"])
        XCTAssertEqual(
            calls.first { $0.name == "public.drop_price(bigint) called as A" }?.message,
            "functions · call public.drop_price(bigint) · as A, with arguments from the seeded row of public.price_list: expected: no write (not declared, so callable by nobody: no caller changes a table no user owns; declare 'function public.drop_price(bigint) callable-by WHO' if that is meant); got: wrote public.price_list: 1 deleted"
        )
        XCTAssertEqual(calls.first { $0.name == "public.my_notes() called as A" }?.status, .passed)
    }

    func testFunctionLineMistakes() throws {
        func mistake(_ line: String) -> String? {
            do {
                _ = try AccessFile.parse(Self.access + line + "\n", path: "notes.rls")
                return nil
            } catch { return error.description }
        }
        XCTAssertEqual(
            mistake("function public.notes_of(uuid)"),
            "notes.rls:5: write 'function schema.name(argument types) callable-by WHO', e.g. 'function public.get_team(uuid) callable-by members'"
        )
        XCTAssertEqual(
            mistake("function public.notes_of(uuid) callable-by admin"),
            "notes.rls:5: unknown callable-by value 'admin' for function public.notes_of(uuid): use anyone | signed-in | owner | members | members with role R | a declared role | nobody (declare 'role admin' if it is a role)"
        )
        XCTAssertNil(mistake("function public.notes_of(int8, text) callable-by signed-in"))
        XCTAssertEqual(
            mistake("function public.notes_of(uuid) callable-by members with role owner"),
            "notes.rls:5: function public.notes_of(uuid): no members block lists the role 'owner': add it to a 'roles' line (the owner's role first), or fix the name"
        )
        let db = try OurSchema.makeDatabase(extra: Self.schema)
        defer { TestServer.drop(db.name) }
        var input = HarnessInput()
        input.access = [
            try AccessFile.parse(Self.access + "function public.notes_of(text) callable-by anyone\n", path: "notes.rls")
        ]
        XCTAssertThrowsError(try Harness.run(input, on: db.connectionString)) { e in
            XCTAssertEqual(
                (e as? InputError)?.description,
                "notes.rls:5: function public.notes_of(text) does not exist in the database: fix the name or argument types, or apply the migrations first"
            )
        }
        input.access = [
            try AccessFile.parse(
                "bucket avatars\n  read public\n  write own-folder\nfunction public.my_notes() callable-by anyone\n",
                path: "notes.rls")
        ]
        XCTAssertThrowsError(try Harness.run(input, on: db.connectionString)) { e in
            XCTAssertEqual(
                (e as? InputError)?.description,
                "notes.rls:4: function public.my_notes(): the probe calls functions with the seeded rows of a declared table: add a 'table schema.name' block"
            )
        }
    }
}
