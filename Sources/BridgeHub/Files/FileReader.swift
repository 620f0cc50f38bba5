import BridgeProtocol
import ConfinedFiles
import Foundation

/// Reads a file for `readFile`: opened once inside the thread's directory (``WorkspaceFiles``), at most 1 MiB,
/// as text when it is UTF-8 without NUL bytes, else base64. Runs off the hub actor (its I/O blocks).
struct FileReader: Sendable {
    /// Largest file returned.
    var limit = 1 << 20

    @concurrent
    func read(_ path: String, cwd: String, roots: WorkspaceRoots) async throws -> FileContent {
        let (file, _) = try WorkspaceFiles.openFile(path, cwd: cwd, roots: roots)
        let shown = file.path.isEmpty ? path : file.path
        guard file.size <= limit else { throw HubError(.tooLarge, "\(shown) is \(file.size) bytes; at most \(limit) are sent") }
        let bytes: [UInt8]
        do {
            bytes = try file.read(upTo: limit + 1)
        } catch {
            throw HubError(.forbiddenPath, "cannot read \(shown)")
        }
        guard bytes.count <= limit else { throw HubError(.tooLarge, "\(shown) grew past \(limit) bytes") }
        let data = Data(bytes)
        let type = MediaType.of(shown)
        if !bytes.contains(0), let text = String(data: data, encoding: .utf8) {
            return FileContent(
                path: shown, size: data.count,
                mimeType: type.hasPrefix("text/") || type == "application/json" ? type : "text/plain; charset=utf-8", text: text)
        }
        return FileContent(path: shown, size: data.count, mimeType: type, base64: data.base64EncodedString())
    }
}
