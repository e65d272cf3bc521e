import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Columns the seeder used to leave alone: `default auth.uid()` (NULL for service_role, which
/// seeds) and nullable foreign keys a policy reads (NULL, a check on them passes vacuously).
final class ColumnFillTests: XCTestCase {
    static func grants(_ tables: String) -> String {
        """
        grant select, insert, update, delete on \(tables) to authenticated;
        grant all on \(tables) to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        """
    }

    /// The owner is author_id; created_by is NOT NULL and filled by `default auth.uid()`.
    static let posts =
        """
        create table public.posts (
          id bigint generated always as identity primary key,
          author_id uuid not null references auth.users (id),
          created_by uuid not null default auth.uid() references auth.users (id),
          body text not null
        );
        alter table public.posts enable row level security;
        create policy posts_read on public.posts for select to authenticated using (author_id = auth.uid());
        create policy posts_write on public.posts for all to authenticated
          using (author_id = auth.uid()) with check (author_id = auth.uid() and created_by = auth.uid());
        """ + grants("public.posts")

    func testCreatedByDefaultIsTheOwner() throws {
        let access = "table public.posts\n  owner author_id\n  read owner\n  write owner\n"
        try IntentFixture.assertCatches(
            schema: Self.posts, access: access,
            present: ["public.posts: B reads A's row", "public.posts: A inserts own row"],
            bugs: [
                .init(
                    what: "posts readable by everyone",
                    sql:
                        "drop policy posts_read on public.posts; create policy r on public.posts for select to authenticated using (true);",
                    fails: ["public.posts: B reads A's row"])
            ])
    }

    /// A feedback box nobody owns: user_id NOT NULL default auth.uid(), read by no API caller.
    static let feedback =
        """
        create table public.feedback (
          id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id),
          message text not null
        );
        alter table public.feedback enable row level security;
        create policy feedback_add on public.feedback for insert to authenticated with check (user_id = auth.uid());
        """ + grants("public.feedback")

    func testUserIDDefaultOnATableNobodyOwns() throws {
        let access = "table public.feedback\n  read nobody\n  insert signed-in\n  update nobody\n  delete nobody\n"
        let report = try IntentFixture.run(Self.feedback, access: access)
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        XCTAssertFalse(report.outcomes.contains { $0.message?.contains("not covered") == true })
        let leaky = try IntentFixture.run(
            Self.feedback + "\ncreate policy r on public.feedback for select to authenticated using (true);",
            access: access)
        XCTAssertFalse(leaky.passed, "feedback readable by everyone: not caught")
    }

    /// A task's project is optional; the policy reads it through a helper that runs past RLS.
    static let tasks =
        """
        create table public.projects (
          id bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id)
        );
        create table public.tasks (
          id bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id),
          project_id bigint references public.projects (id),
          title text not null
        );
        create function public.project_of_mine(p bigint) returns boolean language sql stable security definer
          set search_path = '' as $$ select exists (select 1 from public.projects where id = p and owner_id = auth.uid()) $$;
        alter table public.projects enable row level security;
        alter table public.tasks enable row level security;
        create policy projects_own on public.projects for all to authenticated using (owner_id = auth.uid());
        create policy tasks_read on public.tasks for select to authenticated
          using (owner_id = auth.uid() or public.project_of_mine(project_id));
        create policy tasks_write on public.tasks for all to authenticated
          using (owner_id = auth.uid()) with check (owner_id = auth.uid());
        """ + grants("public.projects, public.tasks")

    /// "any project" instead of "my project": hidden while project_id is NULL.
    static let anyProject = """
        create function public.project_exists(p bigint) returns boolean language sql stable security definer
          set search_path = '' as $$ select exists (select 1 from public.projects where id = p) $$;
        """

    func testNullableKeyAPolicyReadsIsSeeded() throws {
        let access = "table public.tasks\n  owner owner_id\n  read owner\n  write owner\n"
        try IntentFixture.assertCatches(
            schema: Self.tasks, access: access,
            present: ["public.tasks: B reads A's row"],
            bugs: [
                .init(
                    what: "tasks readable through any project",
                    sql: Self.anyProject
                        + "drop policy tasks_read on public.tasks; create policy r on public.tasks for select to authenticated using (owner_id = auth.uid() or public.project_exists(project_id));",
                    fails: ["public.tasks: B reads A's row", "public.tasks: A reads B's row"]),
                .init(
                    what: "tasks writable through any project",
                    sql: Self.anyProject
                        + "drop policy tasks_write on public.tasks; create policy w on public.tasks for all to authenticated using (owner_id = auth.uid() or public.project_exists(project_id)) with check (true);",
                    fails: ["public.tasks: A updates B's row", "public.tasks: A deletes B's row"]),
            ])
    }

    /// A folder key no policy names stays NULL: nothing to seed, the table still passes.
    func testNullableKeyNoPolicyReadsStaysNull() throws {
        let sql =
            """
            create table public.folders (id bigint generated always as identity primary key,
              owner_id uuid not null references auth.users (id), name text not null check (name <> ''));
            create table public.files (id bigint generated always as identity primary key,
              owner_id uuid not null references auth.users (id), folder_id bigint references public.folders (id));
            alter table public.files enable row level security;
            create policy files_own on public.files for all to authenticated
              using (owner_id = auth.uid()) with check (owner_id = auth.uid());
            """ + Self.grants("public.files, public.folders")
        let access = "table public.files\n  owner owner_id\n  read owner\n  write owner\n"
        let db = try StandIn.makeDatabase(prefix: "fill")
        defer { TestServer.drop(db.name) }
        _ = try db.conn.runScript(sql)
        var input = HarnessInput()
        input.access = [try AccessFile.parse(access, path: "f.rls")]
        let report = try Harness.run(input, on: db.connectionString)
        XCTAssertTrue(report.passed, TestReportWriter.render(report, format: .text))
        let folders: Int = try db.conn.query("select count(*)::int as n from public.folders").rows[0].decode("n")
        XCTAssertEqual(folders, 0)
    }
}
