import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Every class of mutant changes the catalog when applied and leaves it exactly as it was when
/// undone: the policies as `pg_get_expr` deparses them, RLS, grants and the whole security surface.
final class MutantUndoTests: ScratchTestCase {
    static let schema = #"""
        create table public.notes (
          id bigint generated always as identity primary key,
          owner_id uuid not null default auth.uid(),
          team text not null default 'a',
          body text
        );
        alter table public.notes enable row level security;
        revoke all on public.notes from anon, authenticated;
        grant select, insert, update, delete on public.notes to authenticated;
        grant select on public.notes to anon;
        create policy "own notes" on public.notes for select to authenticated
          using (owner_id = (select auth.uid()) and team <> 'archived');
        create policy "add notes" on public.notes for insert to authenticated with check (owner_id = auth.uid());
        create policy "edit notes" on public.notes for update to authenticated
          using (owner_id = auth.uid()) with check (owner_id = auth.uid() and team <> 'archived');
        create policy "published ""notes""" on public.notes for select to anon using (body is not null);
        create policy "no frozen teams" on public.notes as restrictive for all to authenticated
          using (team <> 'frozen');
        create policy "own files" on storage.objects for insert to authenticated
          with check (bucket_id = 'files' and (storage.foldername(name))[1] = (select auth.uid())::text);
        create function public.archive_note(note_id bigint) returns void
        language plpgsql security definer set search_path = '' as $$
        begin
          if (select owner_id from public.notes where id = note_id) is distinct from auth.uid() then
            raise exception 'not your note';
          end if;
          update public.notes set team = 'archived' where id = note_id;
        end;
        $$;
        grant execute on function public.archive_note(bigint) to authenticated;
        create table public.cards (
          id uuid primary key default gen_random_uuid(),
          owner_id uuid not null default auth.uid(),
          title text,
          secret text
        );
        alter table public.cards enable row level security;
        revoke all on public.cards from anon, authenticated;
        grant select (id, owner_id, title), update (title) on public.cards to authenticated;
        grant select (title) on public.cards to anon;
        create policy "own cards" on public.cards for all to authenticated using (owner_id = auth.uid());
        create policy "titles" on public.cards for select to anon using (true);
        """#

    func provisioned() throws -> PostgresConnection {
        let dir = try folder(["m/0001_notes.sql": Self.schema])
        let db = try TestServer.makeDatabase(prefix: "mut")
        dbs.append(db.name)
        _ = try Migrator.run(.directory(dir + "/m"), on: db.connectionString)
        return try PostgresConnection(db.connectionString)
    }

    /// Policies of a schema the API does not expose but its roles may use (reached through
    /// SECURITY INVOKER functions, as basejump's) are mutated; those of a schema no API role may
    /// use are not: no request reaches them.
    func testSchemasTheAPIRolesMayUseAreMutatedToo() throws {
        let conn = try provisioned()
        defer { conn.close() }
        _ = try conn.runScript(
            """
            create schema app;
            grant usage on schema app to authenticated;
            create table app.accounts (id uuid primary key, owner uuid);
            alter table app.accounts enable row level security;
            create policy "own accounts" on app.accounts for select to authenticated using (owner = auth.uid());
            create schema hidden;
            create table hidden.ledger (id int primary key);
            alter table hidden.ledger enable row level security;
            create policy "nobody" on hidden.ledger for select using (false);
            """)
        let catalog = try MutationCatalog.read(conn, exposed: ["public"])
        XCTAssertTrue(catalog.policies.contains { $0.schema == "app" && $0.name == "own accounts" })
        XCTAssertTrue(catalog.tables.contains { $0.schema == "app" && $0.name == "accounts" })
        XCTAssertFalse(catalog.policies.contains { $0.schema == "hidden" })
        XCTAssertFalse(catalog.tables.contains { $0.schema == "hidden" })
    }

    func testEveryClassAppliedAndUndoneLeavesTheCatalogIdentical() throws {
        let conn = try provisioned()
        defer { conn.close() }
        let catalog = try MutationCatalog.read(conn, exposed: ["public"])
        let surface = try SurfaceReader.read(conn, exposedSchemas: ["public"])
        let mutants = MutantGenerator.mutants(catalog)
        XCTAssertEqual(
            Set(mutants.map(\.kind)),
            [
                "using-true", "check-true", "drop-conjunct", "drop-folder-check", "invert-identity", "or-signed-in",
                "drop-check", "roles-widened", "drop-restrictive", "rls-disabled", "grant-widened",
                "drop-caller-check", "identity-column", "check-weakened", "column-grant-widened",
            ])
        let sandbox = InPlaceMutations(conn: conn)
        let digest = try SurfaceDigest(conn, exposed: ["public"], catalog: catalog)
        for m in mutants {
            try sandbox.apply(m)
            XCTAssertNotEqual(try MutationCatalog.read(conn, exposed: ["public"]), catalog, "\(m.kind): \(m.mutation)")
            try sandbox.undo(m)
            XCTAssertEqual(try MutationCatalog.read(conn, exposed: ["public"]), catalog, "\(m.kind): \(m.mutation)")
            XCTAssertNoThrow(try digest.verify(after: m), m.mutation)
            XCTAssertNoThrow(try digest.verifyChanged(after: m), m.mutation)
        }
        XCTAssertEqual(try SurfaceReader.read(conn, exposedSchemas: ["public"]), surface)
    }

    /// An undo that leaves the mutant in force stops the run, whether the check after each
    /// mutant (its own object) or the one after the last (the whole catalog) finds it.
    func testAnUndoThatDidNotRestoreIsFound() throws {
        let conn = try provisioned()
        defer { conn.close() }
        let catalog = try MutationCatalog.read(conn, exposed: ["public"])
        let digest = try SurfaceDigest(conn, exposed: ["public"], catalog: catalog)
        let mutants = MutantGenerator.mutants(catalog)
        let sandbox = InPlaceMutations(conn: conn)
        for kind in ["using-true", "column-grant-widened", "drop-caller-check"] {
            let m = try XCTUnwrap(mutants.first { $0.kind == kind }, kind)
            try sandbox.apply(m)
            XCTAssertThrowsError(try digest.verifyChanged(after: m), kind) { XCTAssertTrue($0 is MutationUndoError) }
            try sandbox.undo(m)
            XCTAssertNoThrow(try digest.verifyChanged(after: m), kind)
        }
        // Another policy changed behind a table's mutant: the final check sees it.
        let table = try XCTUnwrap(mutants.first { $0.kind == "rls-disabled" })
        _ = try conn.query("alter policy \"add notes\" on public.notes with check (true)")
        XCTAssertNoThrow(try digest.verifyChanged(after: table))
        XCTAssertThrowsError(try digest.verify(after: table)) { XCTAssertTrue($0 is MutationUndoError) }
    }

    /// What a mutant leaves in force is the mistake it names, casts and quoting kept.
    func testMutantsWriteTheMistakeTheyName() throws {
        let conn = try provisioned()
        defer { conn.close() }
        let catalog = try MutationCatalog.read(conn, exposed: ["public"])
        let mutants = MutantGenerator.mutants(catalog)
        let sandbox = InPlaceMutations(conn: conn)
        func after(_ kind: String, _ policy: String, _ body: (MutationCatalog.Policy?) throws -> Void) throws {
            let m = try XCTUnwrap(mutants.first { $0.kind == kind && $0.policy == policy }, kind)
            try sandbox.apply(m)
            try body(try MutationCatalog.policy(conn, like: m.original!))
            try sandbox.undo(m)
        }
        try after("drop-folder-check", "own files") { p in
            XCTAssertEqual(p?.withCheck, "(bucket_id = 'files'::text)")
        }
        try after("drop-conjunct", "own notes") { p in
            let using = try XCTUnwrap(p?.using)
            XCTAssertFalse(using.contains("archived") && using.contains("owner_id"), using)
        }
        try after("invert-identity", "add notes") { p in XCTAssertEqual(p?.withCheck, "(owner_id <> auth.uid())") }
        try after("drop-check", "edit notes") { p in XCTAssertNil(p?.withCheck) }
        try after("drop-restrictive", "no frozen teams") { p in XCTAssertNil(p) }
        try after("roles-widened", "own notes") { p in XCTAssertEqual(p?.roles, ["anon", "authenticated"]) }
        try after("or-signed-in", "published \"notes\"") { p in
            XCTAssertEqual(p?.using, "((body IS NOT NULL) OR (auth.uid() IS NOT NULL))")
        }
        try after("identity-column", "own cards") { p in XCTAssertEqual(p?.using, "(id = auth.uid())") }
        try after("check-weakened", "own cards") { p in
            XCTAssertEqual(p?.using, "(owner_id = auth.uid())")
            XCTAssertEqual(p?.withCheck, "true")
        }
        let widened = try XCTUnwrap(
            mutants.first { $0.kind == "column-grant-widened" && $0.mutation.contains("UPDATE") }, "\(mutants)")
        try sandbox.apply(widened)
        let has = "select has_table_privilege('authenticated', 'public.cards', 'UPDATE') as t"
        XCTAssertEqual(try conn.query(has).rows.first?.decode("t"), true)
        try sandbox.undo(widened)
        XCTAssertEqual(try conn.query(has).rows.first?.decode("t"), false)
        // anon keeps its own SELECT (title) and gets authenticated's UPDATE (title), nothing more.
        let anon = try XCTUnwrap(mutants.first { $0.kind == "grant-widened" && $0.table == "public.cards" })
        XCTAssertEqual(anon.mutation, "grant widened: anon given UPDATE (title) (as authenticated has)")
        func anonMay(_ column: String, _ privilege: String) throws -> Bool? {
            try conn.query(
                "select has_column_privilege('anon', 'public.cards', $1, $2) as t", [column, privilege]
            ).rows.first?.decode("t")
        }
        try sandbox.apply(anon)
        XCTAssertEqual(try anonMay("title", "UPDATE"), true)
        XCTAssertEqual(try anonMay("secret", "UPDATE"), false)
        try sandbox.undo(anon)
        XCTAssertEqual(try anonMay("title", "UPDATE"), false)
        XCTAssertEqual(try anonMay("title", "SELECT"), true)
        let drop = try XCTUnwrap(mutants.first { $0.kind == "drop-caller-check" })
        XCTAssertEqual(drop.table, "public.archive_note(note_id bigint)")
        try sandbox.apply(drop)
        let body = try XCTUnwrap(try DefinerFunction.read(conn, exposed: ["public"]).first).source
        XCTAssertFalse(body.contains("raise"), body)
        XCTAssertTrue(body.contains("update public.notes"), body)
        try sandbox.undo(drop)
        XCTAssertEqual(try MutationCatalog.read(conn, exposed: ["public"]), catalog)
    }

    /// Only a top-level IF on the caller that raises, with no ELSE of its own, is a caller check.
    func testTheCallerCheckOfAFunctionBody() {
        func cut(_ body: String) -> String? {
            DefinerFunction(schema: "public", name: "f", arguments: "", source: body, definition: body)
                .withoutCallerCheck()?.source
        }
        let nested = """
            begin
              if auth.jwt() ->> 'role' <> 'admin' then
                if true then perform 1; end if;
                raise exception 'admins only';
              end if;
              delete from t;
            end
            """
        XCTAssertEqual(cut(nested), "begin\n  null;\n  delete from t;\nend")
        XCTAssertNil(cut("begin if auth.uid() is null then raise exception 'x'; else perform 1; end if; end"))
        XCTAssertNil(cut("begin if n > 3 then raise exception 'too many'; end if; end"))
        XCTAssertNil(cut("begin if auth.uid() is null then return; end if; end"))
        XCTAssertEqual(
            cut("begin perform 1; IF auth.uid() IS NULL THEN RAISE 'x'; END IF; return; end"),
            "begin perform 1; null; return; end")
    }

    /// A conjunct dropped or a comparison inverted keeps the rest as the server wrote it.
    func testExpressionMutationsKeepCastsAndSubqueries() {
        let storage =
            "((bucket_id = ANY (ARRAY['a'::text, 'b'::text])) AND ((storage.foldername(name))[1] = (( SELECT auth.uid() AS uid))::text))"
        XCTAssertEqual(
            ExpressionMutation.dropping(0, of: storage),
            "((storage.foldername(name))[1] = ((SELECT auth.uid() AS uid))::text)")
        XCTAssertEqual(ExpressionMutation.dropping(1, of: storage), "(bucket_id = ANY (ARRAY['a'::text, 'b'::text]))")
        XCTAssertNil(ExpressionMutation.dropping(0, of: "(owner = auth.uid())"))
        let inverted = ExpressionMutation.invertingIdentity(
            "((team_id IN ( SELECT m.team_id FROM members m WHERE (m.user_id = auth.uid()))) AND (NOT archived))")
        XCTAssertEqual(
            inverted?.text,
            "((team_id IN (SELECT m.team_id FROM members m WHERE (m.user_id <> auth.uid()))) AND (NOT archived))")
        XCTAssertNil(ExpressionMutation.invertingIdentity("(published = true)"))
    }
}
