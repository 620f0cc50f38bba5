import BridgeProtocol
import ConfinedFiles

/// Opens what a request names inside a workspace, once, with ``ConfinedDirectory`` (relative to a directory
/// descriptor, never through a link out of it, FIFOs and devices refused without blocking). The directory
/// itself is opened below the root that holds it, so a link swapped in above the thread's directory cannot
/// redirect it either. Every function here does blocking file I/O: call it off the hub actor.
enum WorkspaceFiles {
    /// The directory `resolved` (absolute, resolved, inside a root by the gate's check), opened below its root.
    static func openDirectory(_ resolved: String, roots: WorkspaceRoots) throws(HubError) -> ConfinedDirectory {
        let bytes = Array(resolved.utf8)
        // The longest root holding it (roots may nest).
        guard
            let root = roots.paths.filter({ WorkspaceRoots.isSameOrBelow(bytes, Array($0.utf8)) }).max(by: { $0.utf8.count < $1.utf8.count }
            )
        else {
            throw HubError(.forbiddenPath, "\(resolved.prefix(256)) is outside this bridge's roots")
        }
        do {
            let top = try ConfinedDirectory.open(absolute: root)
            return try top.directory(suffix(of: resolved, below: root))
        } catch {
            throw HubError(.forbiddenPath, "cannot open \(resolved.prefix(256)): \(error.message)")
        }
    }

    /// The regular file `path` of the thread whose directory is `cwd` (resolved): relative to it, or absolute
    /// inside it; opened once below it; not inside `.git`. Returns the file and its path relative to `cwd`.
    static func openFile(_ path: String, cwd: String, roots: WorkspaceRoots) throws(HubError) -> (file: ConfinedFile, relative: String) {
        let refusal = HubError(.forbiddenPath, "path must name an existing file inside the thread's directory (\(cwd))")
        guard let relative = relativePath(path, cwd: cwd) else { throw refusal }
        guard !relative.split(separator: "/").contains(".git") else {
            throw HubError(.forbiddenPath, "files inside .git are not shown")
        }
        let directory = try openDirectory(cwd, roots: roots)
        let file: ConfinedFile
        do {
            file = try directory.file(relative)
        } catch {
            switch error.code {
            case .notRegularFile: throw HubError(.forbiddenPath, "\(path.prefix(256)) is not a regular file")
            case .denied: throw HubError(.forbiddenPath, "\(path.prefix(256)) cannot be read: permission denied")
            default: throw refusal
            }
        }
        // A link inside the directory may lead into `.git`: judge where the descriptor really points.
        let real = file.path.isEmpty ? directory.path + "/" + relative : file.path
        guard WorkspaceRoots.isSameOrBelow(Array(real.utf8), Array(directory.path.utf8)), real != directory.path else { throw refusal }
        let inside = suffix(of: real, below: directory.path)
        guard !inside.split(separator: "/").contains(".git") else {
            throw HubError(.forbiddenPath, "files inside .git are not shown")
        }
        return (file, inside)
    }

    /// `path` relative to `cwd`: a relative path as given; an absolute one when it lies inside `cwd` (as
    /// given, or once its parent directory is resolved). nil otherwise. Checks no file.
    static func relativePath(_ path: String, cwd: String) -> String? {
        guard !path.isEmpty, path.utf8.count <= 4096, !path.utf8.contains(0) else { return nil }
        guard path.hasPrefix("/") else { return path }
        let bytes = Array(path.utf8)
        if WorkspaceRoots.isSameOrBelow(bytes, Array(cwd.utf8)), bytes.count > cwd.utf8.count { return suffix(of: path, below: cwd) }
        // The client may name the thread's directory as Codex reported it (before links were resolved).
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, let resolvedParent = WorkspaceRoots.resolve(parent) else { return nil }
        if resolvedParent == cwd { return name }
        guard WorkspaceRoots.isSameOrBelow(Array(resolvedParent.utf8), Array(cwd.utf8)) else { return nil }
        return suffix(of: resolvedParent, below: cwd) + "/" + name
    }

    /// What follows `top` and its slash in `path` (which is `top` or below it, compared as bytes); "" for `top`.
    static func suffix(of path: String, below top: String) -> String {
        let bytes = Array(path.utf8)
        let start = top == "/" ? 1 : top.utf8.count + 1
        return start >= bytes.count ? "" : String(decoding: bytes[start...], as: UTF8.self)
    }
}
