import Foundation

/// The directories a thread may run in. A requested cwd is resolved (symlinks followed) and must lie inside
/// one of them.
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

    /// The resolved cwd when it lies inside a root; nil otherwise (also when it does not exist).
    public func confine(_ cwd: String) -> String? {
        guard cwd.hasPrefix("/"), let resolved = Self.resolve(cwd), Self.isDirectory(resolved) else { return nil }
        for root in paths where resolved == root || resolved.hasPrefix(root == "/" ? "/" : root + "/") {
            return resolved
        }
        return nil
    }

    static func resolve(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// A configured root is not usable.
public struct WorkspaceRootError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
