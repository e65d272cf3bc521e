import Foundation

/// A small app for `rlskit init`: posts owned by their author, profiles keyed by the user's id,
/// the team schema (teams, team_members with an enum role, projects), a public price list and a
/// private bucket with one folder per user. The answers are the intent its policies implement.
enum AccessDraftFixture {
    static let schema =
        TeamFixture.schema + "\n"
            + """
            create table public.posts (
              id bigint generated always as identity primary key,
              author_id uuid not null default auth.uid() references auth.users (id),
              body text not null
            );
            create table public.profiles (
              id uuid primary key references auth.users (id) on delete cascade,
              display_name text
            );
            create table public.plans (id bigint generated always as identity primary key, name text not null);
            alter table public.posts enable row level security;
            alter table public.profiles enable row level security;
            alter table public.plans enable row level security;
            grant select on public.posts, public.profiles, public.plans to anon;
            grant select, insert, update, delete on public.posts, public.profiles, public.plans to authenticated;
            grant all on public.posts, public.profiles, public.plans to service_role;
            create policy "posts are public" on public.posts for select to anon, authenticated using (true);
            create policy "authors write" on public.posts for insert to authenticated with check (author_id = (select auth.uid()));
            create policy "authors edit" on public.posts for update to authenticated
              using (author_id = (select auth.uid())) with check (author_id = (select auth.uid()));
            create policy "authors delete" on public.posts for delete to authenticated using (author_id = (select auth.uid()));
            create policy "profiles for members" on public.profiles for select to authenticated using (true);
            create policy "own profile" on public.profiles for insert to authenticated with check (id = (select auth.uid()));
            create policy "edit own profile" on public.profiles for update to authenticated
              using (id = (select auth.uid())) with check (id = (select auth.uid()));
            create policy "price list" on public.plans for select to anon, authenticated using (true);
            insert into storage.buckets (id, name, public) values ('docs', 'docs', false);
            create policy "own docs read" on storage.objects for select to authenticated
              using (bucket_id = 'docs' and (storage.foldername(name))[1] = (select auth.uid())::text);
            create policy "own docs upload" on storage.objects for insert to authenticated
              with check (bucket_id = 'docs' and (storage.foldername(name))[1] = (select auth.uid())::text);
            create policy "own docs update" on storage.objects for update to authenticated
              using (bucket_id = 'docs' and (storage.foldername(name))[1] = (select auth.uid())::text)
              with check (bucket_id = 'docs' and (storage.foldername(name))[1] = (select auth.uid())::text);
            create policy "own docs delete" on storage.objects for delete to authenticated
              using (bucket_id = 'docs' and (storage.foldername(name))[1] = (select auth.uid())::text);
            """

    /// Block line → setting → answer, for every question the draft asks.
    static let answers: [String: [String: String]] = [
        "members public.team_members": [
            "read": "members", "add": "members with role owner", "remove": "members with role owner",
            "leave": "members", "change-role": "members with role owner",
        ],
        "table public.teams": ["read": "members", "write": "members with role owner"],
        "table public.projects": ["read": "members", "write": "members"],
        "table public.posts": ["read": "anyone", "write": "owner"],
        "table public.profiles": ["read": "signed-in", "write": "owner"],
        "table public.plans": ["read": "anyone", "write": "nobody"],
        "bucket docs": [
            "ownership": "folder", "read": "owner", "upload": "owner", "overwrite": "owner", "move": "owner",
            "delete": "owner",
        ],
    ]

    /// The draft with each `key ?` replaced by its answer; the teams block gets its own lines
    /// (creating a team is for anyone signed in, not only its owners), as a user would edit.
    static func answered(_ draft: String) -> String {
        var block = ""
        var out: [String] = []
        for line in draft.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let f = line.first, f != " ", f != "#" {
                block = line.split(separator: " ").prefix(2).joined(separator: " ")
            }
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, words[1] == "?", let answer = answers[block]?[words[0]] else {
                out.append(line)
                continue
            }
            if block == "table public.teams" && words[0] == "write" {
                out += ["  insert signed-in", "  update \(answer)", "  delete \(answer)"]
            } else if block == "table public.projects" && words[0] == "write" {
                out += ["  insert members", "  update members", "  delete members with role owner"]
            } else if block == "table public.profiles" && words[0] == "write" {
                out += ["  insert owner", "  update owner", "  delete nobody"]
            } else {
                out.append("  \(words[0]) \(answer)")
            }
        }
        return out.joined(separator: "\n")
    }
}
