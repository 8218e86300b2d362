// Files the agent writes (its checkpoint, spooled batches): mode 0640 less the umask's bits, never
// through a symbolic link, and replaced atomically (temp file, fsync, rename, fsync of the
// directory) so that a SIGKILL at any instant leaves either the old or the new content, never a
// mix.
#pragma once

#include <string>
#include <string_view>

namespace gpufl::agent {

// False with *error naming the path and the system's reason.
bool writeFileAtomic(const std::string& path, std::string_view data, std::string* error);
// Whole content of a regular file (no symlink followed); false with *error.
bool readWholeFile(const std::string& path, std::string* out, std::string* error);
// mkdir -p with mode 0750 for what it creates; false with *error.
bool makeDirs(const std::string& path, std::string* error);

}  // namespace gpufl::agent
