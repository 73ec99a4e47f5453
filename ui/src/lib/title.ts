// Names shown for a project and the window: the folder's own name matters most (it tells projects
// apart), so it is never the part cut off; the parent path is.

/** A project path split into its parent (with the trailing separator) and the folder's name. */
export function splitProjectPath(path: string): { parent: string; name: string } {
  const trimmed = path.replace(/[\\/]+$/, "");
  if (!trimmed) return { parent: "", name: path }; // the root itself
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return { parent: trimmed.slice(0, cut + 1), name: trimmed.slice(cut + 1) };
}

/** "(2) Nerve — project": waiting approvals first, so they show even in a narrow task bar. */
export function windowTitle(projectPath: string | null, waitingApprovals: number): string {
  const base = projectPath ? `Nerve — ${splitProjectPath(projectPath).name}` : "Nerve";
  return waitingApprovals > 0 ? `(${waitingApprovals}) ${base}` : base;
}
