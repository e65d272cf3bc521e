import Foundation
import Postgres
import TestSupport

@testable import RLSKit

/// An owner-only table with the column types seeding must handle: identity key, enum, date,
/// jsonb, array, a unique NOT NULL text and an owner column named user_id.
let notesSQL = """
    create type public.note_kind as enum ('memo', 'todo');
    create table public.notes (
      id      bigint generated always as identity primary key,
      user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
      title   text not null unique,
      kind    public.note_kind not null,
      due     date not null,
      body    jsonb not null,
      tags    text[] not null,
      weight  numeric(6,2) not null,
      done    boolean not null,
      summary text generated always as (upper(title)) stored
    );
    alter table public.notes enable row level security;
    grant select, insert, update, delete on public.notes to authenticated;
    grant all on public.notes to service_role;
    create policy "own notes: read" on public.notes for select to authenticated using ((select auth.uid()) = user_id);
    create policy "own notes: insert" on public.notes for insert to authenticated with check ((select auth.uid()) = user_id);
    create policy "own notes: update" on public.notes for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
    create policy "own notes: delete" on public.notes for delete to authenticated using ((select auth.uid()) = user_id);
    """

let notesAccess = """

    table public.notes
      owner user_id
      read owner
      write owner
    """

enum Fixture {
    /// Our access file, optionally with more blocks.
    static func access(_ extra: String = notesAccess) throws -> AccessFile {
        let text = try String(contentsOfFile: OurSchema.root + "/sql/tests/access.rls", encoding: .utf8)
        return try AccessFile.parse(text + extra, path: "access.rls")
    }

    static func input(_ extra: String = notesAccess, scenarios: Bool = false) throws -> HarnessInput {
        if scenarios {
            var i = try HarnessLoader.load([OurSchema.root + "/sql/tests"])
            i.access = [try access(extra)]
            return i
        }
        var i = HarnessInput()
        i.access = [try access(extra)]
        return i
    }

    /// Our schema plus notes plus `breakage`, tested; the database is dropped afterwards.
    static func run(breakage: String = "", input: HarnessInput? = nil, options: HarnessOptions = HarnessOptions())
        throws -> TestReport
    {
        let db = try OurSchema.makeDatabase(extra: notesSQL + "\n" + breakage)
        defer { TestServer.drop(db.name) }
        return try Harness.run(input ?? Fixture.input(), options: options, on: db.connectionString)
    }
}
