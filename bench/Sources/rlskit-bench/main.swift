import Foundation
import Postgres
@_spi(CLI) import RLSKit

// Small driver for bench/*.sh. Prints one line: "<name> <seconds>".
//   rlskit-bench statements N pipeline|sequential [insert|select]   (DATABASE_URL or PG* environment)
//   rlskit-bench cluster                            (one LocalCluster start + stop)
//   rlskit-bench parse FILE…                        (read and parse access files and scenarios)
//   rlskit-bench plan FILE…                         (parse, then plan every unit on the database; run none)

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let t = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "statements":
        guard args.count >= 3, let n = Int(args[1]) else {
            throw ConfigurationError("usage: rlskit-bench statements N pipeline|sequential [insert|select]")
        }
        let select = args.count > 3 && args[3] == "select"
        let conn = try PostgresConnection(.fromEnvironment())
        try conn.query("create temp table bench_t (id int primary key, v text)")
        if select {
            try conn.query("insert into bench_t select g, 'value ' || g from generate_series(0, $1::int - 1) g", [n])
        }
        let sql =
            select ? "select v from bench_t where id = $1 and v <> $2" : "insert into bench_t (id, v) values ($1, $2)"
        let t: Double
        if args[2] == "pipeline" {
            let statements = (0..<n).map { PostgresStatement(sql, [$0, "value \($0)"]) }
            t = try seconds { _ = try conn.transaction { c in try c.pipeline(statements) } }
        } else {
            t = try seconds { try conn.transaction { c in for i in 0..<n { try c.query(sql, [i, "value \(i)"]) } } }
        }
        let count: Int = try conn.query("select count(*)::int as n from bench_t").rows[0].decode("n")
        guard count == n else { throw ConfigurationError("expected \(n) rows, found \(count)") }
        print("\(args[2]) \(t)")
    case "cluster":
        let t = try seconds {
            let c = try LocalCluster()
            c.stop()
        }
        print("cluster \(t)")
    case "parse":
        let t = try seconds { _ = try HarnessLoader.load(Array(args.dropFirst())) }
        print("parse \(t)")
    case "plan":
        let input = try HarnessLoader.load(Array(args.dropFirst()))
        var size = (units: 0, checks: 0)
        let t = try seconds { size = try Harness.planSize(input, on: .fromEnvironment()) }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst()
            .first
        print("plan \(t) \(size.units) units \(size.checks) checks, peak \(peak.map { String($0) } ?? "?") kB")
    default:
        throw ConfigurationError(
            "usage: rlskit-bench statements N pipeline|sequential | cluster | parse FILE… | plan FILE…")
    }
} catch {
    FileHandle.standardError.write(Data("rlskit-bench: \(error)\n".utf8))
    exit(2)
}
