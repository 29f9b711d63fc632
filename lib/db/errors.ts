/**
 * Storage errors of the admin paths (the CLI, the seed). Request paths throw ApiError instead.
 * Kept apart from the entity modules so that importing one entity does not bundle another.
 */
export class AlreadyExistsError extends Error {}
export class NoSuchOrganizationError extends Error {}
