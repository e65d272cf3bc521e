import Foundation
import Postgres
import RLSKit
import TestSupport
import XCTest

/// `rlskit test --inferred` on a database given by URL and `check` without access files: a
/// workspace app where any signed-in user inserts documents into any workspace, and its fixed twin.
final class InferredCLITests: XCTestCase {
    static func schema(fixed: Bool) -> String {
        """
        create table public.workspaces (id bigint generated always as identity primary key, title text);
        create table public.workspace_members (
          workspace_id bigint not null references public.workspaces (id),
          member_id uuid not null references auth.users (id), primary key (workspace_id, member_id));
        create table public.docs (
          id bigint generated always as identity primary key,
          workspace_id bigint not null references public.workspaces (id), body text);
        create table public.sessions (
          id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id), refresh_token text);
        alter table public.workspaces enable row level security;
        alter table public.workspace_members enable row level security;
        alter table public.docs enable row level security;
        alter table public.sessions enable row level security;
        grant select, insert, update, delete on public.workspaces, public.workspace_members, public.docs,
          public.sessions to authenticated;
        grant all on public.workspaces, public.workspace_members, public.docs, public.sessions to service_role;
        create function public.in_workspace(w bigint) returns boolean language sql security definer stable
          set search_path = '' as $$
          select exists (select 1 from public.workspace_members m where m.workspace_id = w and m.member_id = auth.uid()) $$;
        create policy "members" on public.workspaces for select to authenticated using (public.in_workspace(id));
        create policy "members" on public.workspace_members for select to authenticated
          using (public.in_workspace(workspace_id));
        create policy "read docs" on public.docs for select to authenticated using (public.in_workspace(workspace_id));
        create policy "own sessions" on public.sessions for select to authenticated using (user_id = (select auth.uid()));
        """
            + (fixed
                ? """
                create policy "edit docs" on public.docs for update to authenticated
                  using (public.in_workspace(workspace_id)) with check (public.in_workspace(workspace_id));
                create policy "write docs" on public.docs for insert to authenticated
                  with check (public.in_workspace(workspace_id));
                """
                : """
                create policy "edit docs" on public.docs for update to authenticated
                  using (public.in_workspace(workspace_id)) with check (true);
                create policy "write docs" on public.docs for insert to authenticated with check (true);
                """)
    }

    func database(fixed: Bool) throws -> (name: String, connectionString: ConnectionString) {
        let db = try StandIn.makeDatabase(prefix: "inferredcli")
        _ = try db.conn.runScript(Self.schema(fixed: fixed))
        db.conn.close()
        return (db.name, db.connectionString)
    }

    /// The whole database as pg_dump writes it, less its restrict keys.
    static func dump(_ db: ConnectionString) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try LocalCluster.findBinDirectory() + "/pg_dump")
        p.arguments = ["--no-sync", "-d", db.raw]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }.joined(separator: "\n")
    }

    func testInferredOnAGivenDatabaseLeavesNothing() throws {
        let db = try database(fixed: false)
        defer { TestServer.drop(db.name) }
        let before = try Self.dump(db.connectionString)
        let here = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: here) }
        let r = try CLI.run(["test", "--database-url", db.connectionString.raw, "--inferred"], directory: here)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("inferred public.docs"), r.stdout)
        XCTAssertTrue(r.stdout.contains("assuming `workspace_id` is the tenant"), r.stdout)
        // The update's WITH CHECK (true) is no hole: the moved row must stay visible to its mover.
        XCTAssertFalse(r.stdout.contains("moves G1's row into G2"), r.stdout)
        XCTAssertTrue(r.stdout.contains("inserts a row into G1"), r.stdout)
        XCTAssertFalse(r.stdout.contains("inferred public.sessions"), r.stdout)
        let after = try Self.dump(db.connectionString)
        XCTAssertEqual(NoResidueTests.withoutSequenceValues(after), NoResidueTests.withoutSequenceValues(before))
        // A database rlskit does not own keeps its sequences advanced: no id is handed out twice.
        XCTAssertTrue(r.stdout.contains("resetting could hand an id out twice"), r.stdout)

        let fixed = try database(fixed: true)
        defer { TestServer.drop(fixed.name) }
        let ok = try CLI.run(["test", "--database-url", fixed.connectionString.raw, "--inferred"], directory: here)
        XCTAssertEqual(ok.code, 0, ok.output)
        XCTAssertTrue(ok.stdout.contains("4 tables without declared intent attacked, 0 holes proven"), ok.stdout)
    }

    func testCheckReportsInferredFindingsInEveryFormat() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        try FileManager.default.createDirectory(atPath: tmp + "/m", withIntermediateDirectories: true)
        try Self.schema(fixed: false).write(toFile: tmp + "/m/0001_app.sql", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            [
                "check", "--dir", tmp + "/m", "--allow-empty", "--json", tmp + "/r.json", "--sarif", tmp + "/r.sarif",
                "--junit", tmp + "/r.xml", "--html", tmp + "/r.html",
            ], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.stdout.contains("attack    4 tables without declared intent attacked"), r.stdout)
        XCTAssertTrue(r.stdout.contains("inferred_intent_violated  table public.docs"), r.stdout)
        XCTAssertTrue(r.stdout.contains("proof: as G"), r.stdout)
        for f in ["r.json", "r.sarif", "r.xml", "r.html"] {
            let text = try String(contentsOfFile: tmp + "/" + f, encoding: .utf8)
            XCTAssertTrue(text.contains("inferred_intent_violated"), f)
            XCTAssertTrue(text.contains("assuming `workspace_id` is the tenant"), f)
        }
        let off = try CLI.run(["check", "--dir", tmp + "/m", "--allow-empty", "--no-inferred"], directory: tmp)
        XCTAssertFalse(off.stdout.contains("inferred_intent_violated"), off.stdout)
    }
}
