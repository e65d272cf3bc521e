import Foundation
import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// A new Supabase project has no `supabase_functions` (it comes with database webhooks): a
/// migration that creates it as its own gets the schema, in each way of writing it, while a
/// project whose triggers already use the webhooks' function keeps the stand-in's, where its
/// own tables are refused as on a project with webhooks turned on.
final class WebhooksSchemaTests: XCTestCase {
    static let notes = """
        create table public.notes (id bigint generated always as identity primary key, body text);
        alter table public.notes enable row level security;
        """

    func apply(_ files: [String: String]) throws -> (owner: String?, tables: [String], error: String?) {
        let dir = NSTemporaryDirectory() + "webhooks-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let cluster = try LocalCluster(
            options: Sandbox.options(PlatformExtensions.clusterOptions(for: []), cache: false))
        defer { cluster.stop() }
        var m = Migrator.Options()
        m.projectConnection = cluster.connectionString
        var failure: String?
        do { _ = try Migrator.run(.directory(dir), options: m, on: cluster.adminConnectionString) } catch {
            failure = "\(error)"
        }
        let conn = try PostgresConnection(cluster.adminConnectionString)
        defer { conn.close() }
        let owner: String? = try conn.query(
            "select nspowner::regrole::text as o from pg_namespace where nspname = 'supabase_functions'"
        ).rows.first?.decode("o")
        let tables: [String] = try conn.query(
            "select relname::text as t from pg_class where relnamespace = to_regnamespace('supabase_functions') and relkind = 'r' order by 1"
        ).rows.map { try $0.decode("t") }
        return (owner, tables, failure)
    }

    func testAMigrationThatCreatesTheSchemaGetsItAsItsOwn() throws {
        for create in [
            "create schema if not exists supabase_functions;",
            "CREATE SCHEMA \"supabase_functions\" AUTHORIZATION postgres;",
            "-- webhooks of our own\ncreate schema if not exists supabase_functions;\ngrant usage on schema supabase_functions to service_role;",
        ] {
            let r = try apply([
                "20240101000000_notes.sql": Self.notes,
                "20240102000000_hooks.sql": create
                    + "\ncreate table if not exists supabase_functions.hooks (id bigserial primary key, note text);\ncreate table supabase_functions.jobs (id bigserial primary key);",
            ])
            XCTAssertNil(r.error, create)
            XCTAssertEqual(r.owner, "postgres", create)
            XCTAssertEqual(r.tables, ["hooks", "jobs"], create)
        }
    }

    func testAProjectUsingTheWebhooksKeepsTheStandIns() throws {
        let r = try apply([
            "20240101000000_notes.sql": Self.notes
                + "\ncreate trigger notify after insert on public.notes for each row execute function supabase_functions.http_request('https://example.com/hook', 'POST', '{}', '{}', '1000');",
            "20240102000000_hooks.sql":
                "create schema if not exists supabase_functions;\ncreate table supabase_functions.jobs (id bigserial primary key);",
        ])
        XCTAssertEqual(r.owner, "supabase_admin")
        XCTAssertEqual(r.tables, ["hooks"])
        XCTAssertTrue(r.error?.contains("permission denied for schema supabase_functions") ?? false, "\(r.error ?? "")")
    }

    func testWhatCountsAsCreatingTheSchema() {
        for yes in [
            "create schema supabase_functions;", "CREATE SCHEMA IF NOT EXISTS supabase_functions;",
            "create schema \"supabase_functions\" authorization postgres;",
            "create table t (x int);\ncreate /* c */ schema if not exists supabase_functions;",
        ] {
            XCTAssertTrue(StandIn.createsWebhooksSchema(yes), yes)
        }
        for no in [
            "create schema supabase_functions_extra;", "-- create schema supabase_functions;",
            "select 'create schema supabase_functions';", "create table supabase_functions.jobs (id int);",
            "create schema if not exists \"Supabase_functions\";", "create schema",
        ] {
            XCTAssertFalse(StandIn.createsWebhooksSchema(no), no)
        }
    }
}
