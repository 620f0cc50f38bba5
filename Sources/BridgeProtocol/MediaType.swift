import Foundation

/// Media types by file name: what `readFile` reports for a workspace file, what `GET /files` sends, and what the
/// web app's own files are served as. One table, in the module every side imports.
public enum MediaType {
    /// The media type for a file name's extension (`application/octet-stream` when unknown).
    public static func of(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "pdf": "application/pdf"
        case "md", "markdown": "text/markdown; charset=utf-8"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
