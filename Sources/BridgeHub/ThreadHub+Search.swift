import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// `searchFiles`: Codex's `fuzzyFileSearch` over the thread's directory only; every match passes the gate's
/// file check (inside that directory once links are resolved, a regular file, not inside `.git`).
extension ThreadHub {
    static let maxSearchQueryCharacters = 256

    func searchFiles(_ search: SearchFiles, cwd: String) async throws -> FileMatches {
        let query = search.query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty, query.count <= Self.maxSearchQueryCharacters,
            !query.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw HubError(.badRequest, "query must be 1 to \(Self.maxSearchQueryCharacters) characters without control characters")
        }
        let limit = search.limit ?? 50
        guard (1...200).contains(limit) else { throw HubError(.badRequest, "limit must be between 1 and 200") }
        let result = try await codex.request(
            "fuzzyFileSearch", params: ["query": .string(query), "roots": [.string(cwd)]], timeout: policy.codexTimeout)
        var matches: [FileMatch] = []
        for file in result["files"]?.arrayValue ?? [] {
            guard let path = file["path"]?.stringValue, file["match_type"]?.stringValue ?? "file" == "file" else { continue }
            let root = file["root"]?.stringValue ?? cwd
            let full = path.hasPrefix("/") ? path : root + "/" + path
            guard case .allowed(let resolved?, _) = gate.admitFile(full, in: cwd, policy: nil) else { continue }
            matches.append(
                FileMatch(path: String(resolved.dropFirst(cwd.count + 1)), score: file["score"]?.numberValue ?? 0, matchType: "file"))
            if matches.count == limit { break }
        }
        return FileMatches(threadId: search.threadId, query: query, files: matches)
    }
}
