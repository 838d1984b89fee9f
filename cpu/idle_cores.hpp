// The cores that other processes leave idle right now, from /proc/loadavg's runnable-task count.
#pragma once

#include <string>

namespace rbf::cpu {

// The cores of `online_cpus` that no other process's task is running on, from the text of
// /proc/loadavg ("0.52 0.61 0.70 3/412 12345": the fourth field is the tasks runnable now /
// all tasks) and `own_running`, how many of the runnable tasks are this process's threads (the
// reader at least). At least 1 and at most online_cpus (itself taken as at least 1). Text not
// in that form means nothing is known about the load: all of online_cpus.
int idle_cores_from_loadavg(const std::string& loadavg, int online_cpus, int own_running);

// Whether the text of /proc/<pid>/task/<tid>/stat ("12 (name) R 1 ...") says the thread is
// running or runnable. The name may hold spaces and parentheses: the state follows the last ')'.
bool task_stat_running(const std::string& stat);

// idle_cores_from_loadavg on `loadavg_path`'s text, this machine's online CPU count and this
// process's running threads; the online CPU count when the file cannot be read (not Linux, a
// restricted /proc).
int idle_cores_now(const char* loadavg_path = "/proc/loadavg");

}  // namespace rbf::cpu
