import BridgeProtocol
import BridgeWeb
import Foundation

/// Reads a file for `readFile` (the path already passed the gate): at most 1 MiB, as text when it is UTF-8
/// without NUL bytes, else base64.
struct FileReader: Sendable {
    /// Largest file returned.
    var limit = 1 << 20

    func read(_ path: String) throws -> FileContent {
        var info = stat()
        guard stat(path, &info) == 0 else { throw HubError(.notFound, "\(path) is gone") }
        let size = Int(info.st_size)
        guard size <= limit else { throw HubError(.tooLarge, "\(path) is \(size) bytes; at most \(limit) are sent") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HubError(.forbiddenPath, "cannot read \(path)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else { throw HubError(.tooLarge, "\(path) grew past \(limit) bytes") }
        let type = WebAsset.contentType(of: path)
        if !data.contains(0), let text = String(data: data, encoding: .utf8) {
            return FileContent(
                path: path, size: data.count,
                mimeType: type.hasPrefix("text/") || type == "application/json" ? type : "text/plain; charset=utf-8", text: text)
        }
        return FileContent(path: path, size: data.count, mimeType: type, base64: data.base64EncodedString())
    }
}
