import Foundation

/// `git diff` of a working directory, for threads whose Codex turn reported no diff.
enum GitDiff {
    /// The uncommitted changes in `directory` (tracked files against HEAD); empty outside a git repository
    /// or when git is missing. Output is capped at `limit` bytes.
    static func diff(in directory: String, limit: Int = 4 << 20) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: run(directory: directory, limit: limit))
            }
        }
    }

    private static func run(directory: String, limit: Int) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory, "diff", "--no-color", "--no-ext-diff", "HEAD"]
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_PAGER"] = "cat"
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("codex-bridge-diff-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: output)
        else { return "" }
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(at: output)
        }
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return ""
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let data = try? Data(contentsOf: output) else { return "" }
        return String(decoding: data.prefix(limit), as: UTF8.self)
    }
}
