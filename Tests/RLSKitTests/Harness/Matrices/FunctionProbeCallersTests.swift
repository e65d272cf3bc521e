import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Where the probe's arguments come from when a file has several own-row tables, `callable-by`
/// a declared role, and functions that send requests through the recording pg_net stand-in.
final class FunctionProbeCallersTests: XCTestCase {
    static let articles = """
        create table public.articles (
          id bigint generated always as identity primary key,
          author_id uuid not null references auth.users (id) on delete cascade,
          title text not null
        );
        alter table public.articles enable row level security;
        grant select, insert, update, delete on public.articles to authenticated;
        grant all on public.articles to service_role;
        create policy "own articles" on public.articles for all to authenticated
          using ((select auth.uid()) = author_id) with check ((select auth.uid()) = author_id);
        -- Deletes any article by id: only the articles unit has one to give it.
        create function public.drop_article(article_id bigint) returns void language sql
          security definer set search_path = '' as $$ delete from public.articles p where p.id = article_id $$;
        -- Purges a user's notes: for admins, by the claim users cannot write.
        create function public.purge_notes(p_user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          if (auth.jwt() -> 'app_metadata' ->> 'role') is distinct from 'admin' then raise exception 'admins only'; end if;
          delete from public.notes n where n.user_id = p_user_id;
        end $$;
        -- The same, checking the claim every user writes.
        create function public.purge_notes_forgeable(p_user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$
        begin
          if (auth.jwt() -> 'user_metadata' ->> 'role') is distinct from 'admin' then raise exception 'admins only'; end if;
          delete from public.notes n where n.user_id = p_user_id;
        end $$;
        -- Switched off for everyone, admins too.
        create function public.purge_disabled(p_user_id uuid) returns void language plpgsql
          security definer set search_path = '' as $$ begin raise exception 'purging is disabled'; end $$;
        """

    static let access = """
        role admin
          claim app_metadata.role = admin

        table public.notes
          owner user_id
          read owner
          write owner

        table public.articles
          owner author_id
          read owner
          write owner

        """

    nonisolated(unsafe) static var cluster: LocalCluster?

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    func calls(_ access: String, extra: String = "") throws -> [TestOutcome] {
        let schema = FunctionProbeHarnessTests.schema + Self.articles + extra
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "app.rls")]
        guard !extra.isEmpty else {
            let db = try OurSchema.makeDatabase(extra: schema)
            defer { TestServer.drop(db.name) }
            return try Harness.run(input, on: db.connectionString).outcomes.filter {
                $0.suite == FunctionProbeRequest.suite
            }
        }
        // The stand-in extensions live on a server set up as `rlskit check` sets it up.
        if Self.cluster == nil { Self.cluster = try LocalCluster(options: PlatformExtensions.clusterOptions) }
        let admin = try PostgresConnection(Self.cluster!.connectionString)
        let name = "fp\(UUID().uuidString.prefix(8).lowercased())"
        try admin.query("create database \(try admin.escapeIdentifier(name))")
        var opts = try Self.cluster!.connectionString.options()
        opts["dbname"] = name
        let cs = ConnectionString(opts.map { "\($0.key)='\($0.value)'" }.joined(separator: " "))
        _ = try Migrator.run(.builtIn, on: cs)
        _ = try PostgresConnection(cs).runScript(schema)
        let outcomes = try Harness.run(input, on: cs).outcomes.filter { $0.suite == FunctionProbeRequest.suite }
        let check = try PostgresConnection(cs)
        for log in ["net.http_request_queue", "rlskit_http.requests"] {
            XCTAssertEqual(try check.query("select count(*) from \(log)").rows.first?.decode(0) as Int64?, 0, log)
        }
        return outcomes
    }

    func testArgumentsComeFromTheUnitWhoseRowsTheyName() throws {
        let calls = try calls(Self.access)
        let b = try XCTUnwrap(calls.first { $0.name == "public.drop_article(bigint) called as B" })
        XCTAssertEqual(b.status, .failed)
        XCTAssertTrue(b.message?.contains("wrote public.articles: 1 deleted") == true, b.message ?? "")
        XCTAssertEqual(calls.first { $0.name == "public.drop_article(bigint) called as A" }?.status, .passed)
        // Each function is called in one unit only.
        XCTAssertEqual(calls.filter { $0.name.hasPrefix("public.notes_of(uuid) ") }.count, 3)
    }

    func testCallableByADeclaredRole() throws {
        let calls = try calls(
            Self.access + """
                function public.purge_notes(uuid) callable-by admin
                function public.purge_notes_forgeable(uuid) callable-by admin
                function public.purge_disabled(uuid) callable-by admin

                """)
        let purges = calls.filter { $0.name.hasPrefix("public.purge") }
        XCTAssertEqual(
            Set(purges.filter(\.isFailure).map(\.name)),
            [
                "public.purge_notes_forgeable(uuid) called as forged admin",
                // The holder has no user_metadata role: locked out of its own function.
                "public.purge_notes_forgeable(uuid) called as admin",
                "public.purge_disabled(uuid) called as admin",
            ])
        XCTAssertEqual(
            Set(purges.map(\.actor)), ["anon", "A", "B", "admin", "forged admin"])
        let forged = try XCTUnwrap(
            purges.first { $0.name == "public.purge_notes_forgeable(uuid) called as forged admin" })
        XCTAssertEqual(
            forged.message,
            "functions · call public.purge_notes_forgeable(uuid) · as forged admin, with arguments from A's row: expected: no write (callable-by admin); got: wrote public.notes: 1 deleted"
        )
        XCTAssertEqual(forged.location?.line, 14)
        let disabled = try XCTUnwrap(purges.first { $0.name == "public.purge_disabled(uuid) called as admin" })
        XCTAssertTrue(
            disabled.message?.hasSuffix(
                "expected: the call goes through (callable-by admin); got: refused (purging is disabled)") == true,
            disabled.message ?? "")
        XCTAssertEqual(purges.first { $0.name == "public.purge_notes(uuid) called as admin" }?.status, .passed)
    }

    func testRequestsThroughTheRecordingStandInAreProbedNotSent() throws {
        let calls = try calls(
            Self.access,
            extra: """
                create extension pg_net with schema extensions;
                create extension http with schema extensions;
                create function public.fetch_note(note_id bigint) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin perform extensions.http_get('https://api.example.test/notes'); end $$;
                create function public.ping(note_id bigint) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin perform net.http_post(url := 'https://hooks.example.test/notes', body := pg_catalog.jsonb_build_object('note', note_id)); end $$;
                -- A database webhook: no stand-in records it, so it is never called.
                create function public.hook(note_id bigint) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin perform supabase_functions.http_request('https://hooks.example.test/hook', 'POST', '{}', '{}', '1000'); end $$;
                """)
        let ping = try XCTUnwrap(calls.first { $0.name == "public.ping(bigint) called as B" })
        XCTAssertEqual(ping.status, .passed)
        XCTAssertEqual(ping.message, "requested POST https://hooks.example.test/notes (recorded, not sent)")
        XCTAssertEqual(
            calls.first { $0.name == "public.fetch_note(bigint) called as anon" }?.message,
            "requested GET https://api.example.test/notes (recorded, not sent)")
        XCTAssertFalse(calls.contains { $0.name.hasPrefix("public.hook(") })
    }
}
