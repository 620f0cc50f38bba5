import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation
import Logging

/// `searchFiles`: Codex's `fuzzyFileSearch` over the thread's directory only; every match is opened once below
/// that directory (``WorkspaceFiles``: a regular file, no link out of it, not inside `.git`).
struct FileSearch: Sendable {
    let codex: any CodexPort
    let timeout: Duration
    let roots: WorkspaceRoots

    static let maxSearchQueryCharacters = 256

    func search(_ search: SearchFiles, cwd: String) async throws -> FileMatches {
        let query = search.query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty, query.count <= Self.maxSearchQueryCharacters,
            !query.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw HubError(.badRequest, "query must be 1 to \(Self.maxSearchQueryCharacters) characters without control characters")
        }
        let limit = search.limit ?? 50
        guard (1...200).contains(limit) else { throw HubError(.badRequest, "limit must be between 1 and 200") }
        let result = try await codex.fuzzyFileSearch(query: query, root: cwd, timeout: timeout)
        var candidates: [(path: String, score: Double)] = []
        for file in result["files"]?.arrayValue ?? [] {
            guard let path = file["path"]?.stringValue, file["match_type"]?.stringValue ?? "file" == "file" else { continue }
            let root = file["root"]?.stringValue ?? cwd
            candidates.append((path.hasPrefix("/") ? path : root + "/" + path, file["score"]?.numberValue ?? 0))
        }
        let matches = await Self.admitted(candidates, cwd: cwd, roots: roots, limit: limit)
        return FileMatches(threadId: search.threadId, query: query, files: matches)
    }

    /// The candidates that open as regular files inside `cwd` (each opened once, see ``WorkspaceFiles``), at
    /// most `limit`, with their paths relative to `cwd`. Off any actor: it opens files.
    @concurrent
    static func admitted(_ candidates: [(path: String, score: Double)], cwd: String, roots: WorkspaceRoots, limit: Int) async -> [FileMatch]
    {
        var matches: [FileMatch] = []
        for candidate in candidates {
            guard let (_, relative) = try? WorkspaceFiles.openFile(candidate.path, cwd: cwd, roots: roots) else { continue }
            matches.append(FileMatch(path: relative, score: candidate.score, matchType: "file"))
            if matches.count == limit { break }
        }
        return matches
    }
}
