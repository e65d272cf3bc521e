import Foundation
import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// 0028 proven by a request: a SECURITY DEFINER function anon may call makes the server send
/// the project's service key (pg_net, http: the stand-ins record, never send). On a server set
/// up as `rlskit check` sets it up, so the stand-in extensions exist.
final class ProverRequestTests: XCTestCase {
    nonisolated(unsafe) static var cluster: LocalCluster?

    override class func tearDown() {
        cluster?.stop()
        cluster = nil
    }

    func proveOnPlatform(_ lint: String, _ sql: String) throws -> [Finding] {
        if Self.cluster == nil { Self.cluster = try LocalCluster(options: PlatformExtensions.clusterOptions) }
        let admin = try PostgresConnection(Self.cluster!.connectionString)
        defer { admin.close() }
        let name = "p\(UUID().uuidString.prefix(8).lowercased())"
        try admin.query("create database \(try admin.escapeIdentifier(name))")
        var opts = try Self.cluster!.connectionString.options()
        opts["dbname"] = name
        let url = ConnectionString(opts.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        let conn = try PostgresConnection(url)
        defer { conn.close() }
        _ = try StandIn.install(conn)
        _ = try conn.runScript(sql)
        let findings = try Auditor.run(conn, exposedSchemas: ["public"]).findings.filter { $0.lint == lint }
        XCTAssertFalse(findings.isEmpty, "\(lint) does not fire on the fixture")
        let recorded =
            "select (select count(*) from net.http_request_queue) + (select count(*) from rlskit_http.requests)"
        let before: Int64 = (try? conn.query(recorded).rows[0].decode(0)) ?? 0
        let result = try Prover.prove(findings, on: url, ownsDatabase: true)
        let after: Int64 = (try? conn.query(recorded).rows[0].decode(0)) ?? 0
        XCTAssertEqual(after, before, "recorded requests left")
        return result.findings
    }

    /// A token whose payload says `role`, as a project hard-codes or keeps in the vault.
    static func token(role: String) -> String {
        func b64url(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return b64url(#"{"alg":"HS256","typ":"JWT"}"#) + "." + b64url(#"{"iss":"demo","role":"\#(role)"}"#) + ".c2ln"
    }

    func testDefinerFunctionSendingTheServiceKeyWithHttpIsProven() throws {
        let f = try proveOnPlatform(
            "anon_security_definer_function_executable",
            """
            create extension if not exists http with schema extensions;
            create function public.remove_file(bucket text, object text, out status int) language plpgsql security definer
              set search_path = '' as $$
            begin
              select r.status into status from extensions.http(('DELETE', 'http://kong:8000/storage/v1/object/' || bucket || '/' || object,
                array[extensions.http_header('authorization', 'Bearer \(Self.token(role: "service_role"))')], null, null)::extensions.http_request) r;
            end $$;
            """)
        let p = try XCTUnwrap(f.first?.proof)
        XCTAssertEqual(p.outcome, .proven, p.line)
        XCTAssertEqual(f.first?.level, .error)
        XCTAssertTrue(p.effect.contains("DELETE http://kong:8000/storage/v1/object/"), p.effect)
        XCTAssertTrue(p.effect.contains("with a service_role token"), p.effect)
        XCTAssertFalse(p.line.contains(Self.token(role: "service_role")), "the key is printed")
        XCTAssertFalse(p.line.contains(" 0 rows"), p.line)
    }

    func testDefinerFunctionSendingAVaultKeyWithPgNetIsProven() throws {
        let f = try proveOnPlatform(
            "anon_security_definer_function_executable",
            """
            create extension if not exists pg_net with schema extensions;
            select vault.create_secret('\(Self.token(role: "service_role"))', 'service_key');
            create function public.invite(email text) returns bigint language plpgsql security definer set search_path = '' as $$
            begin
              return net.http_post(url := 'https://example.test/auth/v1/invite?apikey=' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_key'),
                headers := jsonb_build_object('Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'service_key')),
                body := jsonb_build_object('email', email));
            end $$;
            """)
        let p = try XCTUnwrap(f.first?.proof)
        XCTAssertEqual(p.outcome, .proven, p.line)
        XCTAssertTrue(p.effect.contains("POST https://example.test/auth/v1/invite?apikey=***"), p.effect)
        XCTAssertFalse(p.line.contains(Self.token(role: "service_role")), "the key is printed")
    }

    func testDefinerFunctionSendingNoOrAnAnonKeyIsDemoted() throws {
        let f = try proveOnPlatform(
            "anon_security_definer_function_executable",
            """
            create extension if not exists pg_net with schema extensions;
            create function public.ping(msg text) returns bigint language sql security definer set search_path = '' as $$
              select net.http_post(url := 'https://hooks.example.test/ping',
                headers := jsonb_build_object('apikey', '\(Self.token(role: "anon"))'), body := jsonb_build_object('m', msg))
            $$;
            create function public.ping_plain(msg text) returns bigint language sql security definer set search_path = '' as $$
              select net.http_get(url := 'https://hooks.example.test/ping?m=' || msg)
            $$;
            """)
        XCTAssertEqual(f.count, 2)
        for finding in f {
            XCTAssertEqual(finding.proof?.outcome, .notProven, finding.proof?.line ?? "")
            XCTAssertEqual(finding.level, .warn)
        }
    }

}
