import BridgeProtocol

/// What `attach`'s git lines (`/status`, `/commit MSG`, `/push`) and `!command` runs print: pure text from the
/// bridge's answers and messages, so the session's dispatch stays one line per command.
enum AttachGit {
    /// `/status`: the branch, how far it is from its upstream, then one line per changed file.
    static func describe(_ status: GitStatus) -> String {
        var head = status.branch.map { "on \($0)" } ?? "HEAD detached at \(status.head?.prefix(7) ?? "no commit")"
        if let upstream = status.upstream {
            head +=
                status.ahead == 0 && status.behind == 0
                ? ", up to date with \(upstream)" : ", \(status.ahead) ahead and \(status.behind) behind \(upstream)"
        } else if status.branch != nil {
            head += ", no upstream (/push sets origin)"
        }
        let files = status.files.map { file in
            "  \(file.index)\(file.worktree) \(file.path)" + (file.originalPath.map { " (from \($0))" } ?? "")
        }
        return ([head] + (files.isEmpty ? ["  nothing to commit"] : files) + (status.truncated == true ? ["  …"] : []))
            .joined(separator: "\n")
    }

    /// How a `!command` ended.
    static func describe(_ exited: CommandExited) -> String {
        if let code = exited.exitCode { return "[exit \(code)]" + (exited.truncated == true ? " (output cut at 1 MiB)" : "") }
        return "[\(exited.reason ?? "ended")]"
    }
}
