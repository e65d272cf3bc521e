import Foundation
import PackagePlugin

/// Compiles the package's sql/ folder into the RLSKit module (EmbeddedSQL.files), so the
/// Supabase stand-in and the schema need no files at run time.
@main
struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let sql = context.package.directoryURL.appendingPathComponent("sql")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedSQL.swift")
        // Folders too: adding or removing a file changes them, which re-runs the embedding.
        let inputs =
            [sql]
            + (FileManager.default.enumerator(at: sql, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
        return [
            .buildCommand(
                displayName: "Embedding the SQL files into \(target.name)",
                executable: try context.tool(named: "embed-sql").url,
                arguments: [sql.path, output.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
