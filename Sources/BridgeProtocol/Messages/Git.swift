/// `gitCommit {threadId, message, paths?}`: commits the changes under the thread's directory (all of them, tracked
/// and new, as `git add -A`; or only `paths`, relative to the top of the work tree as `gitStatus` lists them).
public struct GitCommit: ThreadPayload {
    public var threadId: String
    public var message: String
    public var paths: [String]?
    public init(threadId: String, message: String, paths: [String]? = nil) {
        self.threadId = threadId
        self.message = message
        self.paths = paths
    }
}

/// `gitBranch {threadId, name, from?}`: creates branch `name` (at `from`, else `HEAD`) and switches to it.
public struct GitBranch: ThreadPayload {
    public var threadId: String
    public var name: String
    /// A branch, tag or commit the new branch starts at.
    public var from: String?
    public init(threadId: String, name: String, from: String? = nil) {
        self.threadId = threadId
        self.name = name
        self.from = from
    }
}

/// `gitSwitch {threadId, branch}`: switches to an existing branch (refused when it would lose uncommitted changes).
public struct GitSwitch: ThreadPayload {
    public var threadId: String
    public var branch: String
    public init(threadId: String, branch: String) {
        self.threadId = threadId
        self.branch = branch
    }
}

/// `gitPush {threadId, remote?, setUpstream?}`: pushes the current branch to its upstream; without one, to
/// `remote` (default `origin`) under the same name, which becomes its upstream when `setUpstream` is true.
public struct GitPush: ThreadPayload {
    public var threadId: String
    public var remote: String?
    public var setUpstream: Bool?
    public init(threadId: String, remote: String? = nil, setUpstream: Bool? = nil) {
        self.threadId = threadId
        self.remote = remote
        self.setUpstream = setUpstream
    }
}

/// `gitPullRequest {threadId, title, body?, base?}`: a pull request for the current branch (through `gh` when it
/// is installed and logged in; otherwise the answer is the host's compare page to open).
public struct GitPullRequest: ThreadPayload {
    public var threadId: String
    public var title: String
    public var body: String?
    public var base: String?
    public init(threadId: String, title: String, body: String? = nil, base: String? = nil) {
        self.threadId = threadId
        self.title = title
        self.body = body
        self.base = base
    }
}

/// `gitStatus {threadId, branch, head?, upstream?, ahead, behind, files, …}`: the answer to `gitStatus`.
public struct GitStatus: Codable, Sendable, Hashable {
    /// One changed path, with porcelain v2's letters (`M`, `T`, `A`, `D`, `R`, `C`, `U`, `.` unchanged; `?` untracked).
    public struct File: Codable, Sendable, Hashable {
        /// Relative to the top of the work tree.
        public var path: String
        public var index: String
        public var worktree: String
        /// A rename's or copy's source.
        public var originalPath: String?
        public init(path: String, index: String, worktree: String, originalPath: String? = nil) {
            self.path = path
            self.index = index
            self.worktree = worktree
            self.originalPath = originalPath
        }
    }

    public var threadId: String
    /// The branch checked out; null when `HEAD` is detached.
    public var branch: String?
    /// The commit checked out; absent before the first commit.
    public var head: String?
    /// E.g. `origin/main`, when the branch has one.
    public var upstream: String?
    public var ahead: Int
    public var behind: Int
    /// Changed paths under the thread's directory (at most 2000; `truncated` beyond).
    public var files: [File]
    public var truncated: Bool?
    /// The top of the work tree (paths are relative to it).
    public var root: String
    /// The top of the checkout whose repository (`.git`) the commits go to: `root` itself, or for a linked worktree
    /// the main checkout. Always present from this bridge.
    public var repository: String?
    /// `"gh"` when `gitPullRequest` creates the pull request, `"compare"` when it answers the host's compare page;
    /// absent when neither is possible (no branch, or a remote on no known host).
    public var pullRequest: String?
    /// The host's page that proposes merging the branch (into the host's default branch), when the remote is on
    /// GitHub, GitLab or Bitbucket: a link a client can open directly.
    public var compareUrl: String?
    /// The remotes a push can go to (each with a URL), in the configuration's order; empty when the repository has
    /// none (`gitPush` would answer `no_remote`). Always present from this bridge.
    public var remotes: [String]?

    public init(
        threadId: String, branch: String?, head: String? = nil, upstream: String? = nil, ahead: Int = 0, behind: Int = 0, files: [File],
        truncated: Bool? = nil, root: String, repository: String? = nil, pullRequest: String? = nil, compareUrl: String? = nil,
        remotes: [String]? = nil
    ) {
        self.remotes = remotes
        self.repository = repository
        self.compareUrl = compareUrl
        self.threadId = threadId
        self.branch = branch
        self.head = head
        self.upstream = upstream
        self.ahead = ahead
        self.behind = behind
        self.files = files
        self.truncated = truncated
        self.root = root
        self.pullRequest = pullRequest
    }

    private enum CodingKeys: String, CodingKey {
        case threadId, branch, head, upstream, ahead, behind, files, truncated, root, repository, pullRequest, compareUrl, remotes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(threadId, forKey: .threadId)
        try container.encode(branch, forKey: .branch)  // null when detached
        try container.encodeIfPresent(head, forKey: .head)
        try container.encodeIfPresent(upstream, forKey: .upstream)
        try container.encode(ahead, forKey: .ahead)
        try container.encode(behind, forKey: .behind)
        try container.encode(files, forKey: .files)
        try container.encodeIfPresent(truncated, forKey: .truncated)
        try container.encode(root, forKey: .root)
        try container.encodeIfPresent(repository, forKey: .repository)
        try container.encodeIfPresent(pullRequest, forKey: .pullRequest)
        try container.encodeIfPresent(compareUrl, forKey: .compareUrl)
        try container.encodeIfPresent(remotes, forKey: .remotes)
    }
}

/// `gitCommitted {threadId, sha, branch}`: the answer to `gitCommit`.
public struct GitCommitted: Codable, Sendable, Hashable {
    public var threadId: String
    public var sha: String
    /// null when `HEAD` is detached.
    public var branch: String?
    public init(threadId: String, sha: String, branch: String?) {
        self.threadId = threadId
        self.sha = sha
        self.branch = branch
    }
}

/// `gitBranched {threadId, branch}` (the answer to `gitBranch` and `gitSwitch`): the branch now checked out.
public struct GitBranched: Codable, Sendable, Hashable {
    public var threadId: String
    public var branch: String
    public init(threadId: String, branch: String) {
        self.threadId = threadId
        self.branch = branch
    }
}

/// `gitPushed {threadId, remote, branch}`: the answer to `gitPush`; `branch` is the remote branch pushed to.
public struct GitPushed: Codable, Sendable, Hashable {
    public var threadId: String
    public var remote: String
    public var branch: String
    public init(threadId: String, remote: String, branch: String) {
        self.threadId = threadId
        self.remote = remote
        self.branch = branch
    }
}

/// `commitMessage {threadId, message}`: the answer to `gitCommitMessage`, a message Codex wrote for the changes
/// (a summary line, a blank line and a body), for the user to edit.
public struct CommitMessage: Codable, Sendable, Hashable {
    public var threadId: String
    public var message: String
    public init(threadId: String, message: String) {
        self.threadId = threadId
        self.message = message
    }
}

/// `pullRequest {threadId, url, created}`: the answer to `gitPullRequest`. `created` true: `gh` made the pull
/// request at `url`; false: `url` is the host's page for making one (open it).
public struct PullRequest: Codable, Sendable, Hashable {
    public var threadId: String
    public var url: String
    public var created: Bool
    public init(threadId: String, url: String, created: Bool) {
        self.threadId = threadId
        self.url = url
        self.created = created
    }
}
