"""Papers from outside the collection and the people who could review them: conflicts of
interest, recency and the assignment of many papers to many people under quotas."""
