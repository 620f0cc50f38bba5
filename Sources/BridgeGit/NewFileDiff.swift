import ConfinedFiles
import Foundation

/// A unified diff that adds one untracked file, made by the bridge from the file itself (no git, no temporary
/// index). A regular file is read (at most the budget); a symbolic link is shown as a link, never followed;
/// anything else (a FIFO, a socket, a device) is skipped. Blocking I/O: called off the hub actor.
enum NewFileDiff {
    /// The diff for `path` (relative to `top`, the repository's top directory opened once), or nil when it is
    /// skipped. The file is opened below `top` (``ConfinedDirectory``): a link is never followed, a FIFO or device
    /// put in the file's place is skipped without blocking.
    static func render(path: String, top: ConfinedDirectory, budget: Int) -> [UInt8]? {
        let a = quote("a/" + path)
        let b = quote("b/" + path)
        switch try? top.kind(of: path) {
        case .symbolicLink, .linkToDirectory:
            guard let target = try? top.linkTarget(path) else { return nil }
            return header(a, b, mode: "120000") + hunk(target, b: b)
        case .file:
            // Opened once; its size and type are the descriptor's (a link swapped in meanwhile is refused).
            guard let file = try? top.fileWithoutLinks(path) else { return nil }
            let mode = file.isExecutable ? "100755" : "100644"
            guard file.size > 0 else { return header(a, b, mode: mode) }
            guard let bytes = try? file.read(upTo: max(0, min(file.size, budget))) else { return nil }
            if bytes.prefix(8000).contains(0) {
                return header(a, b, mode: mode) + Array("Binary files /dev/null and \(b) differ\n".utf8)
            }
            return header(a, b, mode: mode) + hunk(bytes, b: b)
        default:
            return nil
        }
    }

    private static func header(_ a: String, _ b: String, mode: String) -> [UInt8] {
        Array("diff --git \(a) \(b)\nnew file mode \(mode)\n".utf8)
    }

    /// `--- /dev/null`, `+++ b/…` and one hunk adding every line.
    private static func hunk(_ bytes: [UInt8], b: String) -> [UInt8] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsWithNewline = bytes.last == UInt8(ascii: "\n")
        if endsWithNewline { lines.removeLast() }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + lines.count * 2 + 64)
        out += Array("--- /dev/null\n".utf8)
        out += Array("+++ \(b)\n".utf8)
        out += Array("@@ -0,0 +1\(lines.count == 1 ? "" : ",\(lines.count)") @@\n".utf8)
        for line in lines {
            out.append(UInt8(ascii: "+"))
            out += line
            out.append(UInt8(ascii: "\n"))
        }
        if !endsWithNewline { out += Array("\\ No newline at end of file\n".utf8) }
        return out
    }

    /// git's quoting of a path with unusual bytes (`core.quotePath`): inside double quotes, C escapes.
    static func quote(_ path: String) -> String {
        let needs = path.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 >= 0x80 }
        guard needs else { return path }
        var out = "\""
        for byte in path.utf8 {
            switch byte {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x20...0x7E: out.append(Character(UnicodeScalar(byte)))
            default: out += "\\" + String(byte, radix: 8).leftPadded(to: 3)
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
