/* <sys/queue.h>: the BSD intrusive list macros that glibc also ships and
   much C code (thread pools' task queues, schedulers) builds on. A link
   field (NAME_ENTRY) sits in the element, a head (NAME_HEAD) names the
   first element; nothing is allocated. Five kinds, as the BSDs have them:
   SLIST (singly linked), LIST (doubly linked, no tail), SIMPLEQ and STAILQ
   (singly linked with a tail), TAILQ (doubly linked with a tail), and the
   old CIRCLEQ. The _FOREACH_SAFE forms, which allow removing the current
   element, are the BSDs' (glibc lacks them; code written there uses them). */
#ifndef ULIB_SYS_QUEUE_H
#define ULIB_SYS_QUEUE_H

/* --- SLIST: a head pointer; insert at the head or after an element. */
#define SLIST_HEAD(name, type) struct name { struct type *slh_first; }
#define SLIST_HEAD_INITIALIZER(head) { 0 }
#define SLIST_ENTRY(type) struct { struct type *sle_next; }
#define SLIST_FIRST(head) ((head)->slh_first)
#define SLIST_EMPTY(head) ((head)->slh_first == 0)
#define SLIST_NEXT(elm, field) ((elm)->field.sle_next)
#define SLIST_INIT(head) do { (head)->slh_first = 0; } while (0)
#define SLIST_INSERT_HEAD(head, elm, field) do { \
	(elm)->field.sle_next = (head)->slh_first; \
	(head)->slh_first = (elm); } while (0)
#define SLIST_INSERT_AFTER(slistelm, elm, field) do { \
	(elm)->field.sle_next = (slistelm)->field.sle_next; \
	(slistelm)->field.sle_next = (elm); } while (0)
#define SLIST_REMOVE_HEAD(head, field) do { \
	(head)->slh_first = (head)->slh_first->field.sle_next; } while (0)
#define SLIST_REMOVE_AFTER(elm, field) do { \
	(elm)->field.sle_next = (elm)->field.sle_next->field.sle_next; } while (0)
#define SLIST_REMOVE(head, elm, type, field) do { \
	if ((head)->slh_first == (elm)) { \
		SLIST_REMOVE_HEAD(head, field); \
	} else { \
		struct type *slcur_ = (head)->slh_first; \
		while (slcur_->field.sle_next != (elm)) \
			slcur_ = slcur_->field.sle_next; \
		SLIST_REMOVE_AFTER(slcur_, field); \
	} } while (0)
#define SLIST_FOREACH(var, head, field) \
	for ((var) = (head)->slh_first; (var); (var) = (var)->field.sle_next)
#define SLIST_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = (head)->slh_first; (var) && ((tvar) = (var)->field.sle_next, 1); \
	     (var) = (tvar))

/* --- LIST: each element points back at the pointer that points to it,
   so any element is removed without the head. */
#define LIST_HEAD(name, type) struct name { struct type *lh_first; }
#define LIST_HEAD_INITIALIZER(head) { 0 }
#define LIST_ENTRY(type) struct { struct type *le_next; struct type **le_prev; }
#define LIST_FIRST(head) ((head)->lh_first)
#define LIST_EMPTY(head) ((head)->lh_first == 0)
#define LIST_NEXT(elm, field) ((elm)->field.le_next)
#define LIST_INIT(head) do { (head)->lh_first = 0; } while (0)
#define LIST_INSERT_HEAD(head, elm, field) do { \
	if (((elm)->field.le_next = (head)->lh_first) != 0) \
		(head)->lh_first->field.le_prev = &(elm)->field.le_next; \
	(head)->lh_first = (elm); \
	(elm)->field.le_prev = &(head)->lh_first; } while (0)
#define LIST_INSERT_AFTER(listelm, elm, field) do { \
	if (((elm)->field.le_next = (listelm)->field.le_next) != 0) \
		(listelm)->field.le_next->field.le_prev = &(elm)->field.le_next; \
	(listelm)->field.le_next = (elm); \
	(elm)->field.le_prev = &(listelm)->field.le_next; } while (0)
#define LIST_INSERT_BEFORE(listelm, elm, field) do { \
	(elm)->field.le_prev = (listelm)->field.le_prev; \
	(elm)->field.le_next = (listelm); \
	*(listelm)->field.le_prev = (elm); \
	(listelm)->field.le_prev = &(elm)->field.le_next; } while (0)
#define LIST_REMOVE(elm, field) do { \
	if ((elm)->field.le_next != 0) \
		(elm)->field.le_next->field.le_prev = (elm)->field.le_prev; \
	*(elm)->field.le_prev = (elm)->field.le_next; } while (0)
#define LIST_FOREACH(var, head, field) \
	for ((var) = (head)->lh_first; (var); (var) = (var)->field.le_next)
#define LIST_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = (head)->lh_first; (var) && ((tvar) = (var)->field.le_next, 1); \
	     (var) = (tvar))

/* --- STAILQ (and SIMPLEQ, its older name): singly linked with a pointer
   to the last link, so appending is constant time: a FIFO queue. */
#define STAILQ_HEAD(name, type) struct name { struct type *stqh_first; struct type **stqh_last; }
#define STAILQ_HEAD_INITIALIZER(head) { 0, &(head).stqh_first }
#define STAILQ_ENTRY(type) struct { struct type *stqe_next; }
#define STAILQ_FIRST(head) ((head)->stqh_first)
#define STAILQ_EMPTY(head) ((head)->stqh_first == 0)
#define STAILQ_NEXT(elm, field) ((elm)->field.stqe_next)
#define STAILQ_INIT(head) do { \
	(head)->stqh_first = 0; \
	(head)->stqh_last = &(head)->stqh_first; } while (0)
#define STAILQ_INSERT_HEAD(head, elm, field) do { \
	if (((elm)->field.stqe_next = (head)->stqh_first) == 0) \
		(head)->stqh_last = &(elm)->field.stqe_next; \
	(head)->stqh_first = (elm); } while (0)
#define STAILQ_INSERT_TAIL(head, elm, field) do { \
	(elm)->field.stqe_next = 0; \
	*(head)->stqh_last = (elm); \
	(head)->stqh_last = &(elm)->field.stqe_next; } while (0)
#define STAILQ_INSERT_AFTER(head, listelm, elm, field) do { \
	if (((elm)->field.stqe_next = (listelm)->field.stqe_next) == 0) \
		(head)->stqh_last = &(elm)->field.stqe_next; \
	(listelm)->field.stqe_next = (elm); } while (0)
#define STAILQ_REMOVE_HEAD(head, field) do { \
	if (((head)->stqh_first = (head)->stqh_first->field.stqe_next) == 0) \
		(head)->stqh_last = &(head)->stqh_first; } while (0)
#define STAILQ_REMOVE_AFTER(head, elm, field) do { \
	if (((elm)->field.stqe_next = (elm)->field.stqe_next->field.stqe_next) == 0) \
		(head)->stqh_last = &(elm)->field.stqe_next; } while (0)
#define STAILQ_REMOVE(head, elm, type, field) do { \
	if ((head)->stqh_first == (elm)) { \
		STAILQ_REMOVE_HEAD(head, field); \
	} else { \
		struct type *stqcur_ = (head)->stqh_first; \
		while (stqcur_->field.stqe_next != (elm)) \
			stqcur_ = stqcur_->field.stqe_next; \
		STAILQ_REMOVE_AFTER(head, stqcur_, field); \
	} } while (0)
#define STAILQ_CONCAT(head1, head2) do { \
	if (!STAILQ_EMPTY(head2)) { \
		*(head1)->stqh_last = (head2)->stqh_first; \
		(head1)->stqh_last = (head2)->stqh_last; \
		STAILQ_INIT(head2); \
	} } while (0)
#define STAILQ_FOREACH(var, head, field) \
	for ((var) = (head)->stqh_first; (var); (var) = (var)->field.stqe_next)
#define STAILQ_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = (head)->stqh_first; (var) && ((tvar) = (var)->field.stqe_next, 1); \
	     (var) = (tvar))

#define SIMPLEQ_HEAD STAILQ_HEAD
#define SIMPLEQ_HEAD_INITIALIZER STAILQ_HEAD_INITIALIZER
#define SIMPLEQ_ENTRY STAILQ_ENTRY
#define SIMPLEQ_FIRST STAILQ_FIRST
#define SIMPLEQ_EMPTY STAILQ_EMPTY
#define SIMPLEQ_NEXT STAILQ_NEXT
#define SIMPLEQ_INIT STAILQ_INIT
#define SIMPLEQ_INSERT_HEAD STAILQ_INSERT_HEAD
#define SIMPLEQ_INSERT_TAIL STAILQ_INSERT_TAIL
#define SIMPLEQ_INSERT_AFTER STAILQ_INSERT_AFTER
#define SIMPLEQ_REMOVE_HEAD STAILQ_REMOVE_HEAD
#define SIMPLEQ_REMOVE STAILQ_REMOVE
#define SIMPLEQ_FOREACH STAILQ_FOREACH

/* --- TAILQ: doubly linked with a tail; walks both ways. tqe_prev points
   at the previous element's next pointer (or the head's first), and a
   head looks like an entry to TAILQ_LAST/PREV, which cast it so. */
#define TAILQ_HEAD(name, type) struct name { struct type *tqh_first; struct type **tqh_last; }
#define TAILQ_HEAD_INITIALIZER(head) { 0, &(head).tqh_first }
#define TAILQ_ENTRY(type) struct { struct type *tqe_next; struct type **tqe_prev; }
#define TAILQ_FIRST(head) ((head)->tqh_first)
#define TAILQ_EMPTY(head) ((head)->tqh_first == 0)
#define TAILQ_NEXT(elm, field) ((elm)->field.tqe_next)
#define TAILQ_LAST(head, headname) (*(((struct headname *)((head)->tqh_last))->tqh_last))
#define TAILQ_PREV(elm, headname, field) (*(((struct headname *)((elm)->field.tqe_prev))->tqh_last))
#define TAILQ_INIT(head) do { \
	(head)->tqh_first = 0; \
	(head)->tqh_last = &(head)->tqh_first; } while (0)
#define TAILQ_INSERT_HEAD(head, elm, field) do { \
	if (((elm)->field.tqe_next = (head)->tqh_first) != 0) \
		(head)->tqh_first->field.tqe_prev = &(elm)->field.tqe_next; \
	else \
		(head)->tqh_last = &(elm)->field.tqe_next; \
	(head)->tqh_first = (elm); \
	(elm)->field.tqe_prev = &(head)->tqh_first; } while (0)
#define TAILQ_INSERT_TAIL(head, elm, field) do { \
	(elm)->field.tqe_next = 0; \
	(elm)->field.tqe_prev = (head)->tqh_last; \
	*(head)->tqh_last = (elm); \
	(head)->tqh_last = &(elm)->field.tqe_next; } while (0)
#define TAILQ_INSERT_AFTER(head, listelm, elm, field) do { \
	if (((elm)->field.tqe_next = (listelm)->field.tqe_next) != 0) \
		(elm)->field.tqe_next->field.tqe_prev = &(elm)->field.tqe_next; \
	else \
		(head)->tqh_last = &(elm)->field.tqe_next; \
	(listelm)->field.tqe_next = (elm); \
	(elm)->field.tqe_prev = &(listelm)->field.tqe_next; } while (0)
#define TAILQ_INSERT_BEFORE(listelm, elm, field) do { \
	(elm)->field.tqe_prev = (listelm)->field.tqe_prev; \
	(elm)->field.tqe_next = (listelm); \
	*(listelm)->field.tqe_prev = (elm); \
	(listelm)->field.tqe_prev = &(elm)->field.tqe_next; } while (0)
#define TAILQ_REMOVE(head, elm, field) do { \
	if ((elm)->field.tqe_next != 0) \
		(elm)->field.tqe_next->field.tqe_prev = (elm)->field.tqe_prev; \
	else \
		(head)->tqh_last = (elm)->field.tqe_prev; \
	*(elm)->field.tqe_prev = (elm)->field.tqe_next; } while (0)
#define TAILQ_CONCAT(head1, head2, field) do { \
	if (!TAILQ_EMPTY(head2)) { \
		*(head1)->tqh_last = (head2)->tqh_first; \
		(head2)->tqh_first->field.tqe_prev = (head1)->tqh_last; \
		(head1)->tqh_last = (head2)->tqh_last; \
		TAILQ_INIT(head2); \
	} } while (0)
#define TAILQ_FOREACH(var, head, field) \
	for ((var) = (head)->tqh_first; (var); (var) = (var)->field.tqe_next)
#define TAILQ_FOREACH_SAFE(var, head, field, tvar) \
	for ((var) = (head)->tqh_first; (var) && ((tvar) = (var)->field.tqe_next, 1); \
	     (var) = (tvar))
#define TAILQ_FOREACH_REVERSE(var, head, headname, field) \
	for ((var) = TAILQ_LAST(head, headname); (var); (var) = TAILQ_PREV(var, headname, field))
#define TAILQ_FOREACH_REVERSE_SAFE(var, head, headname, field, tvar) \
	for ((var) = TAILQ_LAST(head, headname); \
	     (var) && ((tvar) = TAILQ_PREV(var, headname, field), 1); (var) = (tvar))

/* --- CIRCLEQ: doubly linked, the head is the ring's sentinel (its
   address, cast, ends a walk). Deprecated in the BSDs; old code has it. */
#define CIRCLEQ_HEAD(name, type) struct name { struct type *cqh_first; struct type *cqh_last; }
#define CIRCLEQ_HEAD_INITIALIZER(head) { (void *)&(head), (void *)&(head) }
#define CIRCLEQ_ENTRY(type) struct { struct type *cqe_next; struct type *cqe_prev; }
#define CIRCLEQ_FIRST(head) ((head)->cqh_first)
#define CIRCLEQ_LAST(head) ((head)->cqh_last)
#define CIRCLEQ_EMPTY(head) ((head)->cqh_first == (void *)(head))
#define CIRCLEQ_NEXT(elm, field) ((elm)->field.cqe_next)
#define CIRCLEQ_PREV(elm, field) ((elm)->field.cqe_prev)
#define CIRCLEQ_INIT(head) do { \
	(head)->cqh_first = (void *)(head); \
	(head)->cqh_last = (void *)(head); } while (0)
#define CIRCLEQ_INSERT_AFTER(head, listelm, elm, field) do { \
	(elm)->field.cqe_next = (listelm)->field.cqe_next; \
	(elm)->field.cqe_prev = (listelm); \
	if ((listelm)->field.cqe_next == (void *)(head)) \
		(head)->cqh_last = (elm); \
	else \
		(listelm)->field.cqe_next->field.cqe_prev = (elm); \
	(listelm)->field.cqe_next = (elm); } while (0)
#define CIRCLEQ_INSERT_BEFORE(head, listelm, elm, field) do { \
	(elm)->field.cqe_next = (listelm); \
	(elm)->field.cqe_prev = (listelm)->field.cqe_prev; \
	if ((listelm)->field.cqe_prev == (void *)(head)) \
		(head)->cqh_first = (elm); \
	else \
		(listelm)->field.cqe_prev->field.cqe_next = (elm); \
	(listelm)->field.cqe_prev = (elm); } while (0)
#define CIRCLEQ_INSERT_HEAD(head, elm, field) do { \
	(elm)->field.cqe_next = (head)->cqh_first; \
	(elm)->field.cqe_prev = (void *)(head); \
	if ((head)->cqh_last == (void *)(head)) \
		(head)->cqh_last = (elm); \
	else \
		(head)->cqh_first->field.cqe_prev = (elm); \
	(head)->cqh_first = (elm); } while (0)
#define CIRCLEQ_INSERT_TAIL(head, elm, field) do { \
	(elm)->field.cqe_next = (void *)(head); \
	(elm)->field.cqe_prev = (head)->cqh_last; \
	if ((head)->cqh_first == (void *)(head)) \
		(head)->cqh_first = (elm); \
	else \
		(head)->cqh_last->field.cqe_next = (elm); \
	(head)->cqh_last = (elm); } while (0)
#define CIRCLEQ_REMOVE(head, elm, field) do { \
	if ((elm)->field.cqe_next == (void *)(head)) \
		(head)->cqh_last = (elm)->field.cqe_prev; \
	else \
		(elm)->field.cqe_next->field.cqe_prev = (elm)->field.cqe_prev; \
	if ((elm)->field.cqe_prev == (void *)(head)) \
		(head)->cqh_first = (elm)->field.cqe_next; \
	else \
		(elm)->field.cqe_prev->field.cqe_next = (elm)->field.cqe_next; } while (0)
#define CIRCLEQ_FOREACH(var, head, field) \
	for ((var) = (head)->cqh_first; (var) != (const void *)(head); \
	     (var) = (var)->field.cqe_next)
#define CIRCLEQ_FOREACH_REVERSE(var, head, field) \
	for ((var) = (head)->cqh_last; (var) != (const void *)(head); \
	     (var) = (var)->field.cqe_prev)

#endif
