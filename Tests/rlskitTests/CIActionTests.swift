import Foundation
import TestSupport
import XCTest

/// The GitHub Action (action.yml) run as the runner runs a composite action: each `run` step in
/// bash with its `env` (inputs filled in), GITHUB_* pointing to temporary files, the folders a
/// step adds to GITHUB_PATH on the next steps' PATH, the `uses` steps left out; on a small
/// project. And the GitLab example of docs/ci.md: well-formed, and its script lines run.
final class CIActionTests: XCTestCase {
    var tmp = ""

    override func setUpWithError() throws { tmp = try CLI.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: tmp) }

    /// A YAML file as JSON objects, read by PyYAML.
    static func yaml(_ path: String) throws -> Any {
        try Python.ensure(module: "yaml", package: "PyYAML")
        let out = try Python.run([
            "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", path,
        ])
        return try JSONSerialization.jsonObject(with: out)
    }

    /// A user's project: one table, its migration and its access file; `hole` adds a policy
    /// that lets every signed-in user read every note.
    func project(_ dir: String, hole: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: dir + "/supabase/migrations", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/supabase/tests", withIntermediateDirectories: true)
        try
            ("""
        create table public.notes (id bigint generated always as identity primary key,
          user_id uuid not null default auth.uid() references auth.users (id), body text);
        create index on public.notes (user_id);
        alter table public.notes enable row level security;
        grant select, insert, update, delete on public.notes to authenticated;
        create policy "own notes" on public.notes for all to authenticated
          using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);

        """
            + (hole
                ? "create policy \"anyone reads\" on public.notes for select to authenticated using (true);\n" : ""))
            .write(toFile: dir + "/supabase/migrations/0001_notes.sql", atomically: true, encoding: .utf8)
        try "table public.notes\n  owner user_id\n  read owner\n  write owner\n".write(
            toFile: dir + "/supabase/tests/access.rls", atomically: true, encoding: .utf8)
    }

    struct ActionRun {
        var code: Int32
        var output: String
        var outputs: [String: String]
        var summary: String
        /// The `uses` steps that would run, with their `with` filled in.
        var uses: [(action: String, with: [String: String])]
        /// Each step's GITHUB_OUTPUT, by step id.
        var steps: [String: [String: String]]
    }

    /// Runs action.yml's steps in `workspace` with `inputs` over the defaults; the rlskit it
    /// installs is the one the tests built (RLSKIT_BINARY), not a new release build.
    func runAction(_ inputs: [String: String], workspace: String) throws -> ActionRun {
        let root = Provisioned.repositoryRoot
        let action = try XCTUnwrap(try Self.yaml(root + "/action.yml") as? [String: Any])
        var values: [String: String] = [:]
        for (name, spec) in try XCTUnwrap(action["inputs"] as? [String: Any]) {
            values[name] = ((spec as? [String: Any])?["default"]).map { "\($0)" } ?? ""
        }
        values.merge(inputs) { $1 }
        let runs = try XCTUnwrap(action["runs"] as? [String: Any])
        XCTAssertEqual(runs["using"] as? String, "composite")
        let runner = tmp + "/runner"
        try FileManager.default.createDirectory(atPath: runner, withIntermediateDirectories: true)
        var run = ActionRun(code: 0, output: "", outputs: [:], summary: "", uses: [], steps: [:])
        var path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let value = { (ref: String) -> String in
            let parts = ref.split(separator: ".").map(String.init)
            if parts.count == 2 && parts[0] == "inputs" { return values[parts[1]] ?? "" }
            if parts.count == 4 && parts[0] == "steps" && parts[2] == "outputs" {
                return run.steps[parts[1]]?[parts[3]] ?? ""
            }
            return "?\(ref)"
        }
        let fill = { (text: String) -> String in
            var out = text
            while let open = out.range(of: "${{ "),
                let close = out.range(of: " }}", range: open.upperBound..<out.endIndex)
            {
                out.replaceSubrange(
                    open.lowerBound..<close.upperBound, with: value(String(out[open.upperBound..<close.lowerBound])))
            }
            return out
        }
        // The `if` expressions action.yml uses: always(), and `a == b` / `a != b` joined by &&.
        let holds = { (condition: String?) -> Bool in
            guard let condition else { return run.code == 0 }
            var always = false
            let terms = condition.components(separatedBy: " && ").map { term -> Bool in
                if term == "always()" {
                    always = true
                    return true
                }
                let sides = term.components(separatedBy: " ")
                guard sides.count == 3 else { return false }
                let side = { (s: String) in s.hasPrefix("'") ? String(s.dropFirst().dropLast()) : value(s) }
                return sides[1] == "==" ? side(sides[0]) == side(sides[2]) : side(sides[0]) != side(sides[2])
            }
            return (always || run.code == 0) && !terms.contains(false)
        }
        for (n, step) in try XCTUnwrap(runs["steps"] as? [[String: Any]]).enumerated() {
            guard holds(step["if"] as? String) else { continue }
            if let uses = step["uses"] as? String {
                let with = ((step["with"] as? [String: Any]) ?? [:]).mapValues { fill("\($0)") }
                run.uses.append((uses, with))
                continue
            }
            let script = try XCTUnwrap(step["run"] as? String)
            XCTAssertEqual(step["shell"] as? String, "bash")
            try script.write(toFile: "\(runner)/step\(n).sh", atomically: true, encoding: .utf8)
            var env = ProcessInfo.processInfo.environment
            for (k, v) in (step["env"] as? [String: Any]) ?? [:] { env[k] = fill("\(v)") }
            let files = ["GITHUB_OUTPUT": "output", "GITHUB_STEP_SUMMARY": "summary", "GITHUB_PATH": "path"]
            for (k, f) in files {
                env[k] = "\(runner)/\(f)\(n)"
                _ = FileManager.default.createFile(atPath: "\(runner)/\(f)\(n)", contents: Data())
            }
            env["GITHUB_ACTIONS"] = "true"
            env["GITHUB_ACTION_PATH"] = root
            env["GITHUB_WORKSPACE"] = workspace
            env["RUNNER_TEMP"] = runner
            env["TMPDIR"] = tmp
            env["RLSKIT_BINARY"] = CLI.binary
            env["PATH"] = path
            let r = try CLI.run(
                ["--noprofile", "--norc", "-eo", "pipefail", "\(runner)/step\(n).sh"], environment: env,
                directory: workspace, binary: "/bin/bash")
            run.output += r.output
            run.summary += (try? String(contentsOfFile: "\(runner)/summary\(n)", encoding: .utf8)) ?? ""
            let added = try String(contentsOfFile: "\(runner)/path\(n)", encoding: .utf8).split(separator: "\n")
            path = (added.reversed().map(String.init) + [path]).joined(separator: ":")
            if let id = step["id"] as? String {
                var outs: [String: String] = [:]
                for line in try String(contentsOfFile: "\(runner)/output\(n)", encoding: .utf8).split(separator: "\n") {
                    let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
                    if kv.count == 2 { outs[kv[0]] = kv[1] }
                }
                run.steps[id] = outs
            }
            if run.code == 0 { run.code = r.code }
        }
        for (name, spec) in (action["outputs"] as? [String: Any]) ?? [:] {
            run.outputs[name] = fill(((spec as? [String: Any])?["value"] as? String) ?? "")
        }
        return run
    }

    /// A passing project: exit 0, the step summary, the SARIF file and the outputs the upload
    /// step reads; Swift found, so only the upload step is left to GitHub.
    func testActionPassesAProjectAndWritesSummaryAndSARIF() throws {
        let workspace = tmp + "/ws"
        try project(workspace)
        let r = try runAction([:], workspace: workspace)
        XCTAssertEqual(r.code, 0, r.output)
        // Swift is here, so setup-swift is left out; the upload gets the SARIF file.
        XCTAssertEqual(r.uses.map(\.action), ["github/codeql-action/upload-sarif@v3"], r.output)
        XCTAssertEqual(r.uses.first?.with["sarif_file"], workspace + "/rlskit.sarif")
        XCTAssertTrue(r.summary.hasPrefix("## rlskit check: passed\n"), r.summary)
        XCTAssertEqual(r.outputs["exit-code"], "0")
        XCTAssertEqual(r.outputs["sarif-file"], workspace + "/rlskit.sarif")
        let sarif = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: workspace + "/rlskit.sarif")))
                as? [String: Any])
        XCTAssertEqual(sarif["version"] as? String, "2.1.0")
        XCTAssertFalse(r.output.contains("::error"), r.output)
        XCTAssertTrue(r.output.contains("passed in"), r.output)
    }

    /// A leak in a project in a subfolder: the check step fails with rlskit's exit code, after
    /// writing the summary, annotations on the access file's path from the workspace, the SARIF
    /// file and exit-code=1; the upload still runs.
    func testActionFailsOnALeakWithAnnotationsAndOutputs() throws {
        let workspace = tmp + "/ws"
        try project(workspace + "/app", hole: true)
        let r = try runAction(
            ["working-directory": "app", "args": "--jobs 2", "sarif-file": "rls.sarif"], workspace: workspace)
        XCTAssertEqual(r.code, 1, r.output)
        XCTAssertTrue(r.summary.hasPrefix("## rlskit check: failed\n"), r.summary)
        let annotations = r.output.split(separator: "\n").filter { $0.hasPrefix("::error file=") }
        XCTAssertFalse(annotations.isEmpty, r.output)
        for a in annotations {
            XCTAssertTrue(a.hasPrefix("::error file=app/supabase/tests/access.rls,line="), "\(a)")
        }
        XCTAssertEqual(r.steps["check"], ["exit-code": "1", "sarif": workspace + "/app/rls.sarif"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: workspace + "/app/rls.sarif"))
        XCTAssertEqual(r.uses.map(\.action), ["github/codeql-action/upload-sarif@v3"], r.output)
        XCTAssertEqual(r.uses.first?.with["sarif_file"], workspace + "/app/rls.sarif")
        XCTAssertEqual(r.outputs["exit-code"], "1")
    }

    /// A working-directory that is not there: exit 2 and one line, before anything is installed.
    func testMissingWorkingDirectoryIsOneLine() throws {
        let workspace = tmp + "/ws"
        try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        let r = try runAction(["working-directory": "nope", "upload-sarif": "false"], workspace: workspace)
        XCTAssertEqual(r.code, 2, r.output)
        XCTAssertEqual(r.uses.count, 0)
        XCTAssertEqual(r.output, "rlskit action: working-directory 'nope' is not a folder\n")
    }

    /// docs/ci.md's GitLab job parses, keeps the JUnit file and the HTML report, and its lines run:
    /// the install line on this checkout (with the built binary, to skip a release build), then
    /// the script lines as written, in a project.
    func testGitLabExampleIsWellFormedAndItsScriptRuns() throws {
        let example = try DocPage.block(startingWith: "# .gitlab-ci.yml", in: "docs/ci.md")
        try example.write(toFile: tmp + "/gitlab-ci.yml", atomically: true, encoding: .utf8)
        let jobs = try XCTUnwrap(try Self.yaml(tmp + "/gitlab-ci.yml") as? [String: Any])
        let job = try XCTUnwrap(jobs["rls"] as? [String: Any])
        XCTAssertTrue((job["image"] as? String ?? "").hasPrefix("swift:"), "\(job)")
        let before = try XCTUnwrap(job["before_script"] as? [String])
        let script = try XCTUnwrap(job["script"] as? [String])
        let artifacts = try XCTUnwrap(job["artifacts"] as? [String: Any])
        XCTAssertEqual(artifacts["when"] as? String, "always")
        let junit = try XCTUnwrap((artifacts["reports"] as? [String: Any])?["junit"] as? String)
        let paths = try XCTUnwrap(artifacts["paths"] as? [String])

        let install = try XCTUnwrap(before.first { $0.contains("scripts/install") })
        XCTAssertTrue(install.hasPrefix("/opt/rlskit/scripts/install --prefix /usr/local/bin"), install)
        let bin = tmp + "/bin"
        let local =
            install.replacingOccurrences(of: "/opt/rlskit", with: Provisioned.repositoryRoot)
            .replacingOccurrences(of: "/usr/local/bin", with: bin) + " --binary '\(CLI.binary)'"
        let app = tmp + "/app"
        try project(app)
        let env = ["TMPDIR": tmp, "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        for line in [local] + script {
            let r = try CLI.run(["-eo", "pipefail", "-c", line], environment: env, directory: app, binary: "/bin/bash")
            XCTAssertEqual(r.code, 0, "\(line): \(r.output)")
        }
        for file in [junit] + paths {
            XCTAssertTrue(FileManager.default.fileExists(atPath: app + "/" + file), "\(file) was not written")
        }
    }
}
