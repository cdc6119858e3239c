/*
 * Licensed under the Apache License, Version 2.0 (the "License"); you may
 * not use this file except in compliance with the License. You may obtain
 * a copy of the License at
 *
 *      http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
 * WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
 * License for the specific language governing permissions and limitations
 * under the License.
 */

/*
 * The pod sandbox's process: it holds the pod's namespaces and does
 * nothing else. As PID 1 of the pod it reaps orphans, and it leaves with
 * status 0 when asked to stop.
 */

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig)
{
	(void)sig;
	_exit(0);
}

static void on_child(int sig)
{
	(void)sig;
	/* Several children may have exited behind one signal. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(void)
{
	struct sigaction stop = { .sa_handler = on_stop };
	struct sigaction child = { .sa_handler = on_child,
				   .sa_flags = SA_NOCLDSTOP | SA_RESTART };

	sigemptyset(&stop.sa_mask);
	sigemptyset(&child.sa_mask);
	if (sigaction(SIGINT, &stop, NULL) || sigaction(SIGTERM, &stop, NULL) ||
	    sigaction(SIGCHLD, &child, NULL))
		return 1;
	for (;;)
		pause();
}
