import Foundation

/// The directories a thread may run in. A requested cwd is resolved (symlinks followed) and must lie inside
/// one of them.
///
/// Paths are compared as bytes, never as Swift strings: `String` equality is Unicode canonical equivalence,
/// under which `café` (NFC) and `café` (NFD), two different directories on Linux, are equal.
public struct WorkspaceRoots: Sendable {
    /// The resolved roots.
    public let paths: [String]

    /// - Parameter roots: directories; each must exist.
    /// - Throws: a message naming the first root that does not resolve to a directory.
    public init(_ roots: [String]) throws {
        self.paths = try roots.map { root in
            guard let resolved = Self.resolve(root), Self.isDirectory(resolved) else {
                throw WorkspaceRootError(message: "--root \(root) is not an existing directory")
            }
            return resolved
        }
    }

    /// The resolved cwd when it is an existing directory inside a root; nil otherwise.
    public func confine(_ cwd: String) -> String? {
        guard cwd.hasPrefix("/"), let resolved = Self.resolve(cwd), Self.isDirectory(resolved), contains(resolved: resolved) else {
            return nil
        }
        return resolved
    }

    /// Whether an already resolved absolute path is a root or lies below one (byte comparison).
    public func contains(resolved path: String) -> Bool {
        paths.contains { root in Self.isSameOrBelow(Array(path.utf8), Array(root.utf8)) }
    }

    /// Whether `path` equals `root` or starts with `root` followed by `/`, byte for byte.
    public static func isSameOrBelow(_ path: [UInt8], _ root: [UInt8]) -> Bool {
        if root == [UInt8(ascii: "/")] { return path.first == UInt8(ascii: "/") }
        guard path.count >= root.count, path[..<root.count].elementsEqual(root) else { return false }
        return path.count == root.count || path[root.count] == UInt8(ascii: "/")
    }

    public static func resolve(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    public static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// A configured root is not usable.
public struct WorkspaceRootError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
