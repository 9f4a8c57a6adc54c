
import { AverosEntity, ID, getUseCaseViewLayout, 
         EntityViewLayout, UseCase, UseCaseViewLayout, 
         User, OneToOne } from '@wiforge/averos';
import { Observable } from 'rxjs';
import { BookServiceService } from '../service/book-service.service';
import { Genre } from './genre';

@AverosEntity(BookServiceService)
export class Book {
    public static entityViewLayout$: Observable<EntityViewLayout<Book>>;
    public static entityViewLayout : EntityViewLayout<Book>;
    public static entityName = 'Book';
    public static instanceMetadata = new Book();

    // Averos entity identifier is equal to 'id' by default
    // please change the identifier at your convenience
    @ID()
    id!: string;
    name!: string;
    description!: string;
    createdAt!: Date;
    updatedAt!: Date;
    @OneToOne('User', import('@wiforge/averos'))createdBy!: User;
    @OneToOne('User', import('@wiforge/averos'))updatedBy!: User;
    title!: string;
    author!: string;
    pages!: string;
    genre!: Genre;




     
     /**
      * TODO: Add your custom entity members
      *
      */




    static getEntityViewLayout(): Observable<EntityViewLayout<Book>> {
        return Book.entityViewLayout$;
    }

    static getUseCaseViewLayout(useCase: UseCase): Observable<UseCaseViewLayout<Book>>{
        return getUseCaseViewLayout(Book, useCase);
    }

}