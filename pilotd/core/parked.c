// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "parked.h"

struct parked *parked_add(struct parked_list *l, void *req, uint64_t fh, const void *data,
			  size_t size)
{
	struct parked *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (data) {
		p->data = malloc(size ? size : 1);
		if (!p->data) {
			free(p);
			return NULL;
		}
		memcpy(p->data, data, size);
	}
	p->req = req;
	p->fh = fh;
	p->size = size;
	parked_put_back(l, p);
	return p;
}

void parked_put_back(struct parked_list *l, struct parked *p)
{
	p->next = NULL;
	p->prev = l->tail;
	if (l->tail)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
	l->count++;
}

struct parked *parked_take(struct parked_list *l, struct parked *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		l->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		l->tail = p->prev;
	p->next = p->prev = NULL;
	l->count--;
	return p;
}

void parked_free(struct parked *p)
{
	if (p)
		free(p->data);
	free(p);
}

struct parked *parked_find(const struct parked_list *l, const void *req)
{
	for (struct parked *p = l->head; p; p = p->next)
		if (p->req == req)
			return p;
	return NULL;
}

struct parked *parked_first_of(const struct parked_list *l, uint64_t fh)
{
	for (struct parked *p = l->head; p; p = p->next)
		if (fh == PARKED_ANY_FH || p->fh == fh)
			return p;
	return NULL;
}

struct parked *parked_first_interrupted(const struct parked_list *l)
{
	for (struct parked *p = l->head; p; p = p->next)
		if (p->interrupted)
			return p;
	return NULL;
}

struct parked *parked_first_cmd(const struct parked_list *l, unsigned int cmd)
{
	for (struct parked *p = l->head; p; p = p->next)
		if (p->cmd == cmd)
			return p;
	return NULL;
}
